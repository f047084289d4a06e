/* The replay container's seccomp profile: see seccomp_profile.h. */
#include "orchestrator/seccomp/seccomp_profile.h"

#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/seccomp/seccomp_json.h"

/* Allowed unconditionally on every architecture (names absent on one are
 * skipped there). Written from the Linux syscall tables: everything an
 * ordinary unprivileged program uses, minus what the engine's default
 * profile documents as blocked for a container without extra capabilities
 * (kernel modules, kexec, mount/umount/pivot_root, namespaces via unshare/
 * setns, keyrings, bpf, perf_event_open, userfaultfd, clock and time
 * setting, swap, reboot, quotactl, acct, ioperm/iopl, handle-based opens,
 * lookup_dcookie, sysfs/_sysctl/ustat/uselib, vm86, ptrace and
 * process_vm_*). io_uring is left out as newer engine profiles do: its
 * submissions bypass seccomp. */
static const char *const base_syscalls[] = {
	"accept", "accept4", "access", "adjtimex", "alarm", "bind", "brk", "capget",
	"capset", "chdir", "chmod", "chown", "chown32", "clock_getres",
	"clock_getres_time64", "clock_gettime", "clock_gettime64", "clock_nanosleep",
	"clock_nanosleep_time64", "close", "close_range", "connect", "copy_file_range",
	"creat", "dup", "dup2", "dup3", "epoll_create", "epoll_create1", "epoll_ctl",
	"epoll_pwait", "epoll_pwait2", "epoll_wait", "eventfd", "eventfd2", "execve",
	"execveat", "exit", "exit_group", "faccessat", "faccessat2", "fadvise64",
	"fadvise64_64", "fallocate", "fanotify_mark", "fchdir", "fchmod", "fchmodat",
	"fchown", "fchown32", "fchownat", "fcntl", "fcntl64", "fdatasync", "fgetxattr",
	"flistxattr", "flock", "fork", "fremovexattr", "fsetxattr", "fstat", "fstat64",
	"fstatat64", "fstatfs", "fstatfs64", "fsync", "ftruncate", "ftruncate64", "futex",
	"futex_time64", "futimesat", "getcpu", "getcwd", "getdents", "getdents64",
	"getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32", "getgroups",
	"getgroups32", "getitimer", "getpeername", "getpgid", "getpgrp", "getpid",
	"getppid", "getpriority", "getrandom", "getresgid", "getresgid32", "getresuid",
	"getresuid32", "getrlimit", "get_robust_list", "getrusage", "getsid",
	"getsockname", "getsockopt", "get_thread_area", "gettid", "gettimeofday",
	"getuid", "getuid32", "getxattr", "inotify_add_watch", "inotify_init",
	"inotify_init1", "inotify_rm_watch", "io_cancel", "ioctl", "io_destroy",
	"io_getevents", "io_pgetevents", "io_pgetevents_time64", "ioprio_get",
	"ioprio_set", "io_setup", "io_submit", "ipc", "kill", "lchown", "lchown32",
	"lgetxattr", "link", "linkat", "listen", "listxattr", "llistxattr", "_llseek",
	"lremovexattr", "lseek", "lsetxattr", "lstat", "lstat64", "madvise", "membarrier",
	"memfd_create", "mincore", "mkdir", "mkdirat", "mknod", "mknodat", "mlock",
	"mlock2", "mlockall", "mmap", "mmap2", "mprotect", "mq_getsetattr", "mq_notify",
	"mq_open", "mq_timedreceive", "mq_timedreceive_time64", "mq_timedsend",
	"mq_timedsend_time64", "mq_unlink", "mremap", "msgctl", "msgget", "msgrcv",
	"msgsnd", "msync", "munlock", "munlockall", "munmap", "nanosleep", "newfstatat",
	"_newselect", "open", "openat", "openat2", "pause", "pidfd_open",
	"pidfd_send_signal", "pipe", "pipe2", "pkey_alloc", "pkey_free", "pkey_mprotect",
	"poll", "ppoll", "ppoll_time64", "prctl", "pread64", "preadv", "preadv2",
	"prlimit64", "pselect6", "pselect6_time64", "pwrite64", "pwritev", "pwritev2",
	"read", "readahead", "readlink", "readlinkat", "readv", "recv", "recvfrom",
	"recvmmsg", "recvmmsg_time64", "recvmsg", "remap_file_pages", "removexattr",
	"rename", "renameat", "renameat2", "restart_syscall", "rmdir", "rseq",
	"rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
	"rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigtimedwait_time64",
	"rt_tgsigqueueinfo", "sched_getaffinity", "sched_getattr", "sched_getparam",
	"sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler",
	"sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity",
	"sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp",
	"select", "semctl", "semget", "semop", "semtimedop", "semtimedop_time64", "send",
	"sendfile", "sendfile64", "sendmmsg", "sendmsg", "sendto", "setfsgid",
	"setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups",
	"setgroups32", "setitimer", "setpgid", "setpriority", "setregid", "setregid32",
	"setresgid", "setresgid32", "setresuid", "setresuid32", "setreuid", "setreuid32",
	"setrlimit", "set_robust_list", "setsid", "setsockopt", "set_thread_area",
	"set_tid_address", "setuid", "setuid32", "setxattr", "shmat", "shmctl", "shmdt",
	"shmget", "shutdown", "sigaltstack", "signalfd", "signalfd4", "sigprocmask",
	"sigreturn", "socketcall", "socketpair", "splice", "stat", "stat64", "statfs",
	"statfs64", "statx", "symlink", "symlinkat", "sync", "sync_file_range", "syncfs",
	"sysinfo", "tee", "tgkill", "time", "timer_create", "timer_delete",
	"timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime",
	"timer_settime64", "timerfd_create", "timerfd_gettime", "timerfd_gettime64",
	"timerfd_settime", "timerfd_settime64", "times", "tkill", "truncate",
	"truncate64", "ugetrlimit", "umask", "uname", "unlink", "unlinkat", "utime",
	"utimensat", "utimensat_time64", "utimes", "vfork", "vmsplice", "wait4",
	"waitid", "waitpid", "write", "writev",
};

/* The ROCm runtime's NUMA placement (hsa-runtime binds host allocations
 * to the GPU's node). The default profile wants CAP_SYS_NICE for these;
 * the replay has no capability at all, and they only move its own pages. */
static const char *const numa_syscalls[] = {
	"get_mempolicy", "mbind", "move_pages", "set_mempolicy",
};

/* Hang-diagnostic runs: a debugger attaches to the stuck replay and reads
 * its memory. */
static const char *const ptrace_syscalls[] = {
	"ptrace", "process_vm_readv", "process_vm_writev",
};

struct arch_info {
	const char *engine;        /* Go's GOARCH, as /version reports it */
	uint32_t token;
	const char *name;          /* SCMP_ARCH_* in the profile's archMap */
	struct { uint32_t token; const char *name; } sub[2]; /* compat arches */
	const char *extra[4];      /* arch-specific calls */
	int clone_flags_arg;       /* s390x swaps clone's first two arguments */
};

static const struct arch_info arches[] = {
	{ "amd64", SCMP_ARCH_X86_64, "SCMP_ARCH_X86_64", { { SCMP_ARCH_X86, "SCMP_ARCH_X86" }, { SCMP_ARCH_X32, "SCMP_ARCH_X32" } },
	  { "arch_prctl", "modify_ldt" }, 0 },
	{ "arm64", SCMP_ARCH_AARCH64, "SCMP_ARCH_AARCH64", { { SCMP_ARCH_ARM, "SCMP_ARCH_ARM" } },
	  { "arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2", "set_tls" }, 0 },
	{ "ppc64le", SCMP_ARCH_PPC64LE, "SCMP_ARCH_PPC64LE", { { 0, NULL } },
	  { "sync_file_range2", "swapcontext" }, 0 },
	{ "s390x", SCMP_ARCH_S390X, "SCMP_ARCH_S390X", { { SCMP_ARCH_S390, "SCMP_ARCH_S390" } },
	  { "s390_pci_mmio_read", "s390_pci_mmio_write", "s390_runtime_instr" }, 1 },
};

#define N_ARCHES (sizeof(arches) / sizeof(arches[0]))
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* clone is allowed without namespace flags (CLONE_NEWNS, NEWCGROUP,
 * NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET): threads and fork, not
 * containers in the container. */
#define CLONE_NAMESPACE_FLAGS 0x7E020000ULL
/* personality: only the values programs set in practice (PER_LINUX,
 * UNAME26, ADDR_NO_RANDOMIZE, both, and the query 0xffffffff). */
static const unsigned long long personality_ok[] = { 0x0, 0x8, 0x20000, 0x20008, 0xffffffff };
#define AF_VSOCK_FAMILY 40
/* The calls the rules with arguments name, checked like the lists. */
static const char *const conditional_syscalls[] = { "clone", "clone3", "personality", "socket" };

static const struct arch_info *arch_by_token(uint32_t token)
{
	for (size_t i = 0; i < N_ARCHES; i++)
		if (arches[i].token == token)
			return &arches[i];
	return NULL;
}

int seccomp_arch_from_engine(const char *engine_arch, uint32_t *out, struct error *err)
{
	for (size_t i = 0; i < N_ARCHES; i++) {
		if (engine_arch && strcmp(engine_arch, arches[i].engine) == 0) {
			*out = arches[i].token;
			return 0;
		}
	}
	return error_set(err, ERR_USAGE, 0,
			 "no seccomp profile for the engine's architecture '%s' "
			 "(known: amd64, arm64, ppc64le, s390x); use --seccomp default",
			 engine_arch ? engine_arch : "");
}

const char *seccomp_mode_name(enum seccomp_mode mode)
{
	switch (mode) {
	case SECCOMP_MODE_REPLAY: return "replay";
	case SECCOMP_MODE_DEFAULT: return "default";
	case SECCOMP_MODE_UNCONFINED: return "unconfined";
	case SECCOMP_MODE_FILE: return "file";
	}
	return "?";
}

int seccomp_choice_parse(const char *arg, struct seccomp_choice *out, struct error *err)
{
	static const enum seccomp_mode named[] = {
		SECCOMP_MODE_REPLAY, SECCOMP_MODE_DEFAULT, SECCOMP_MODE_UNCONFINED,
	};

	out->mode = SECCOMP_MODE_REPLAY;
	out->path = NULL;
	if (!arg || !*arg)
		return error_set(err, ERR_USAGE, 0,
				 "--seccomp needs default, replay, unconfined or a profile file");
	for (size_t i = 0; i < COUNT(named); i++) {
		if (strcmp(arg, seccomp_mode_name(named[i])) == 0) {
			out->mode = named[i];
			return 0;
		}
	}
	out->mode = SECCOMP_MODE_FILE;
	out->path = xstrdup(arg);
	return 0;
}

void seccomp_choice_release(struct seccomp_choice *c)
{
	free(c->path);
	c->path = NULL;
}

/* ---- name resolution ---- */

enum name_state { NAME_OK, NAME_ABSENT, NAME_UNKNOWN };

/* libseccomp answers a name it knows but the architecture lacks with a
 * negative pseudo number, and one it does not know at all with
 * __NR_SCMP_ERROR. Calls an architecture multiplexes (socket calls through
 * socketcall, SysV IPC through ipc on s390x, ppc64le and x86) resolve to
 * the multiplexer after rewriting, and libseccomp filters them there. A
 * name counts as present when the architecture or one of its compat
 * sub-architectures has it (32-bit programs run on 64-bit engines and the
 * profile's archMap covers them). */
static enum name_state resolve_one(uint32_t token, const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(token, name);

	if (nr == __NR_SCMP_ERROR)
		return NAME_UNKNOWN;
	if (nr >= 0 || seccomp_syscall_resolve_name_rewrite(token, name) >= 0)
		return NAME_OK;
	return NAME_ABSENT;
}

static enum name_state resolve(const struct arch_info *a, const char *name)
{
	enum name_state st = resolve_one(a->token, name);

	for (size_t i = 0; st != NAME_OK && i < COUNT(a->sub) && a->sub[i].name; i++) {
		enum name_state sub = resolve_one(a->sub[i].token, name);

		if (sub != NAME_UNKNOWN)
			st = sub;
	}
	return st;
}

static int check_name(const struct arch_info *a, const char *name, bool strict,
		      struct strvec *notes, bool *keep, struct error *err)
{
	enum name_state st = resolve(a, name);

	*keep = st == NAME_OK;
	if (st == NAME_UNKNOWN && strict)
		return error_set(err, ERR_DATA, 0,
				 "seccomp profile: libseccomp %u.%u does not know syscall '%s'",
				 seccomp_version()->major, seccomp_version()->minor, name);
	if (st != NAME_OK && notes)
		strvec_pushf(notes, "seccomp profile: skipped %s: %s on %s", name,
			     st == NAME_ABSENT ? "not a syscall" : "unknown to libseccomp",
			     a->engine);
	return 0;
}

static int add_names(cJSON *names, const struct arch_info *a, const char *const *list,
		     size_t n, const struct seccomp_profile_opts *o, struct strvec *notes,
		     struct error *err)
{
	for (size_t i = 0; i < n && list[i]; i++) {
		bool keep;

		if (check_name(a, list[i], o->strict, notes, &keep, err) < 0)
			return -1;
		if (keep)
			cJSON_AddItemToArray(names, cJSON_CreateString(list[i]));
	}
	return 0;
}

int seccomp_names_check(uint32_t arch, const char *const *names, size_t n, bool strict,
			struct strvec *notes, struct error *err)
{
	const struct arch_info *a = arch_by_token(arch);
	const struct seccomp_profile_opts o = { .arch = arch, .strict = strict };
	cleanup_cjson cJSON *kept = cJSON_CreateArray();

	if (!a)
		return error_set(err, ERR_USAGE, 0, "seccomp: unsupported architecture 0x%x",
				 (unsigned)arch);
	if (add_names(kept, a, names, n, &o, notes, err) < 0)
		return -1;
	return cJSON_GetArraySize(kept);
}

/* ---- rules with arguments ---- */

static cJSON *rule(const char *name, const char *action)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *names = cJSON_AddArrayToObject(r, "names");

	cJSON_AddItemToArray(names, cJSON_CreateString(name));
	cJSON_AddStringToObject(r, "action", action);
	return r;
}

static void rule_arg(cJSON *r, int index, unsigned long long value,
		     unsigned long long value_two, const char *op)
{
	cJSON *args = cJSON_GetObjectItemCaseSensitive(r, "args");
	cJSON *a = cJSON_CreateObject();

	if (!args)
		args = cJSON_AddArrayToObject(r, "args");
	cJSON_AddNumberToObject(a, "index", index);
	cJSON_AddNumberToObject(a, "value", (double)value);
	cJSON_AddNumberToObject(a, "valueTwo", (double)value_two);
	cJSON_AddStringToObject(a, "op", op);
	cJSON_AddItemToArray(args, a);
}

static void add_conditional_rules(cJSON *syscalls, const struct arch_info *a)
{
	cJSON *r;

	for (size_t i = 0; i < COUNT(personality_ok); i++) {
		r = rule("personality", "SCMP_ACT_ALLOW");
		rule_arg(r, 0, personality_ok[i], 0, "SCMP_CMP_EQ");
		cJSON_AddItemToArray(syscalls, r);
	}
	r = rule("clone", "SCMP_ACT_ALLOW");
	rule_arg(r, a->clone_flags_arg, CLONE_NAMESPACE_FLAGS, 0, "SCMP_CMP_MASKED_EQ");
	cJSON_AddItemToArray(syscalls, r);
	/* clone3 passes its flags in memory seccomp cannot read: answer ENOSYS
	 * so the C library falls back to clone, which is checked above. */
	r = rule("clone3", "SCMP_ACT_ERRNO");
	cJSON_AddNumberToObject(r, "errnoRet", 38);
	cJSON_AddItemToArray(syscalls, r);
	/* Every socket family but vsock (a channel to the host's hypervisor). */
	r = rule("socket", "SCMP_ACT_ALLOW");
	rule_arg(r, 0, AF_VSOCK_FAMILY, 0, "SCMP_CMP_NE");
	cJSON_AddItemToArray(syscalls, r);
}

static cJSON *allow_rule(cJSON *names)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddItemToObject(r, "names", names);
	cJSON_AddStringToObject(r, "action", "SCMP_ACT_ALLOW");
	return r;
}

int seccomp_profile_tree(const struct seccomp_profile_opts *o, cJSON **out,
			 struct strvec *notes, struct error *err)
{
	const struct arch_info *a = arch_by_token(o->arch);
	cleanup_cjson cJSON *root = NULL;
	cJSON *map, *entry, *sub, *syscalls, *names;

	*out = NULL;
	if (!a)
		return error_set(err, ERR_USAGE, 0, "seccomp profile: unsupported architecture 0x%x",
				 (unsigned)o->arch);
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "defaultAction", "SCMP_ACT_ERRNO");
	cJSON_AddNumberToObject(root, "defaultErrnoRet", 1); /* EPERM */
	map = cJSON_AddArrayToObject(root, "archMap");
	entry = cJSON_CreateObject();
	cJSON_AddStringToObject(entry, "architecture", a->name);
	sub = cJSON_AddArrayToObject(entry, "subArchitectures");
	for (size_t i = 0; i < COUNT(a->sub) && a->sub[i].name; i++)
		cJSON_AddItemToArray(sub, cJSON_CreateString(a->sub[i].name));
	cJSON_AddItemToArray(map, entry);
	syscalls = cJSON_AddArrayToObject(root, "syscalls");

	names = cJSON_CreateArray();
	cJSON_AddItemToArray(syscalls, allow_rule(names));
	if (add_names(names, a, base_syscalls, COUNT(base_syscalls), o, notes, err) < 0 ||
	    add_names(names, a, a->extra, COUNT(a->extra), o, notes, err) < 0 ||
	    add_names(names, a, numa_syscalls, COUNT(numa_syscalls), o, notes, err) < 0 ||
	    seccomp_names_check(o->arch, conditional_syscalls, COUNT(conditional_syscalls),
				o->strict, notes, err) < 0)
		return error_prefix(err, "building the replay's seccomp profile: ");
	if (o->allow_ptrace &&
	    add_names(names, a, ptrace_syscalls, COUNT(ptrace_syscalls), o, notes, err) < 0)
		return error_prefix(err, "building the replay's seccomp profile: ");
	add_conditional_rules(syscalls, a);
	*out = steal_pointer(&root);
	return 0;
}

int seccomp_profile_build(const struct seccomp_profile_opts *o, struct strbuf *json,
			  struct strvec *notes, struct error *err)
{
	cleanup_cjson cJSON *root = NULL;
	cleanup_free char *text = NULL;

	if (seccomp_profile_tree(o, &root, notes, err) < 0)
		return -1;
	text = cJSON_PrintUnformatted(root);
	if (!text)
		return error_set(err, ERR_SYSTEM, 0, "seccomp profile: out of memory");
	strbuf_addstr(json, text);
	return 0;
}

/* ---- a site's profile ---- */

static bool is_action(const cJSON *v)
{
	return cJSON_IsString(v) && strncmp(v->valuestring, "SCMP_ACT_", 9) == 0;
}

static int validate_name(const cJSON *n, uint32_t arch, size_t i, struct error *err)
{
	if (!cJSON_IsString(n) || !*n->valuestring)
		return error_set(err, ERR_DATA, 0, "syscalls[%zu]: a name is not a string", i);
	if (seccomp_syscall_resolve_name_arch(arch, n->valuestring) == __NR_SCMP_ERROR)
		return error_set(err, ERR_DATA, 0, "syscalls[%zu]: unknown syscall '%.64s'", i,
				 n->valuestring);
	return 0;
}

static int validate_entry(const cJSON *e, uint32_t arch, size_t i, struct error *err)
{
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(e, "names");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
	const cJSON *n;

	if (!cJSON_IsObject(e))
		return error_set(err, ERR_DATA, 0, "syscalls[%zu] is not an object", i);
	if (!is_action(cJSON_GetObjectItemCaseSensitive(e, "action")))
		return error_set(err, ERR_DATA, 0, "syscalls[%zu]: no SCMP_ACT_* action", i);
	if (!names && !name)
		return error_set(err, ERR_DATA, 0, "syscalls[%zu]: no names", i);
	if (name && validate_name(name, arch, i, err) < 0)
		return -1;
	if (names && !cJSON_IsArray(names))
		return error_set(err, ERR_DATA, 0, "syscalls[%zu]: names is not an array", i);
	cJSON_ArrayForEach(n, names) {
		if (validate_name(n, arch, i, err) < 0)
			return -1;
	}
	return 0;
}

int seccomp_profile_validate(const char *text, size_t len, uint32_t arch, struct error *err)
{
	cleanup_cjson cJSON *root = cJSON_ParseWithLength(text, len);

	return seccomp_profile_check(root, arch, err);
}

int seccomp_profile_check(const cJSON *root, uint32_t arch, struct error *err)
{
	const cJSON *syscalls, *e;
	size_t i = 0;

	if (!cJSON_IsObject(root))
		return error_set(err, ERR_DATA, 0, "seccomp profile: not a JSON object");
	if (!is_action(cJSON_GetObjectItemCaseSensitive(root, "defaultAction")))
		return error_set(err, ERR_DATA, 0,
				 "seccomp profile: no defaultAction (\"SCMP_ACT_...\")");
	syscalls = cJSON_GetObjectItemCaseSensitive(root, "syscalls");
	if (!cJSON_IsArray(syscalls))
		return error_set(err, ERR_DATA, 0, "seccomp profile: no syscalls array");
	cJSON_ArrayForEach(e, syscalls) {
		if (validate_entry(e, arch, i++, err) < 0)
			return error_prefix(err, "seccomp profile: ");
	}
	return 0;
}

cJSON *seccomp_record_json(const struct seccomp_choice *c, cJSON *profile)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "mode", seccomp_mode_name(c->mode));
	if (c->mode == SECCOMP_MODE_FILE && c->path)
		cJSON_AddStringToObject(r, "path", c->path);
	if (profile)
		cJSON_AddItemToObject(r, "profile", profile);
	return r;
}
