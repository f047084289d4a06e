#!/usr/bin/env bash
# The fault soak (docs/sweep.md "Every case ends exactly once"): a sweep of
# SOAK_CASES no-op cases on four fake GPUs, against an engine of the soak's
# own (a private dockerd in its own network namespace,
# tests/private-dockerd.sh, or a root Podman service with its own storage
# and run roots), while the soak
#   * kills and restarts the engine twice (SIGKILL, then SIGTERM),
#   * SIGKILLs the sweep once, then runs `sweep --resume`,
#   * fills the workdir's file system (a tmpfs) until writes fail, then
#     frees it and resumes,
#   * reads the history database (`history site` in a loop) all along,
# at points chosen from a printed seed. Then it checks that every planned
# case ended exactly once (final results, summary.json, junit.xml,
# history), that no attempt the engine took away became a verdict, that no
# GPU was made suspect or quarantined, that no container, lease or
# temporary file is left, and `PRAGMA integrity_check`; prints its figures
# and exits 1 on any breach. Root only.
#
#   tests/soak.sh docker|podman [CASES [SEED]]
#
# HRR_BIN names the tool (default build/hrr-docker-replay), HRR_IMAGE_TAG
# the simulator image (hrr-sim:<tag>, copied from the host's dockerd).
# HRR_SOAK_KEEP=1 keeps the soak's directory.
set -uo pipefail

cd "$(dirname "$0")/.."
ENGINE=${1:?usage: tests/soak.sh docker|podman [CASES [SEED]]}
CASES=${2:-500}
SEED=${3:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
SRC_BIN=$(realpath "${HRR_BIN:-build/hrr-docker-replay}")
TAG=${HRR_IMAGE_TAG:-dev}
IMAGE=hrr-sim:$TAG
SRC=$PWD

say() { printf 'soak[%s]: %s\n' "$ENGINE" "$*" >&2; }
die() { say "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (a private engine, a tmpfs, device nodes)"
case $ENGINE in docker | podman) ;; *) die "usage: tests/soak.sh docker|podman [CASES [SEED]]" ;; esac
[[ $CASES =~ ^[0-9]+$ ]] && [ "$CASES" -ge 8 ] || die "CASES must be a number >= 8"
RANDOM=$SEED
START=$SECONDS

# Short: containerd's and conmon's sockets live under it.
ROOT=$(mktemp -d /tmp/hrr-soak-XXXXXX)
chmod 0711 "$ROOT"
FS=$ROOT/fs           # the workdir's file system
WORK=$FS/work
LIB=$ROOT/library
DB=$ROOT/db/history.sqlite
LOCKS=$ROOT/locks
DEV=$ROOT/dev
SITE=$ROOT/site
LOG=$ROOT/log
mkdir -p "$FS" "$LIB" "$ROOT/db" "$LOCKS" "$DEV/dri" "$LOG"
# A copy: a rebuild during a long soak must not change the tool under it.
BIN=$ROOT/hrr-docker-replay
cp "$SRC_BIN" "$BIN"

# ---- the engine ----

PE=$ROOT/pe
PM=$ROOT/pm
pm() {
	CONTAINERS_CONF=$PM/containers.conf podman --root "$PM/storage" --runroot "$PM/run" \
		--tmpdir "$PM/tmp" "$@"
}
sock() { if [ "$ENGINE" = docker ]; then echo "$PE/docker.sock"; else echo "$PM/podman.sock"; fi; }
answers() { curl -sf --max-time 3 --unix-socket "$(sock)" http://localhost/_ping >/dev/null 2>&1; }

engine_start() {
	if [ "$ENGINE" = docker ]; then
		bash tests/private-dockerd.sh start "$PE" >/dev/null || die "private dockerd did not start"
		return
	fi
	mkdir -p "$PM/storage" "$PM/run" "$PM/tmp"
	rm -f "$PM/podman.sock"
	(cd / && CONTAINERS_CONF=$PM/containers.conf exec setsid nohup podman --root "$PM/storage" \
		--runroot "$PM/run" --tmpdir "$PM/tmp" system service --time=0 "unix://$PM/podman.sock" \
		>>"$PM/service.log" 2>&1 </dev/null) &
	echo $! >"$PM/service.pid"
	local deadline=$((SECONDS + 60))
	until answers; do
		[ $SECONDS -lt $deadline ] || { tail -20 "$PM/service.log" >&2; die "podman service did not start"; }
		sleep 0.2
	done
}

engine_pid() {
	if [ "$ENGINE" = docker ]; then cat "$PE/dockerd.pid" 2>/dev/null; else cat "$PM/service.pid"; fi
}

alive() { # pid: running and not a zombie
	local state
	kill -0 "$1" 2>/dev/null || return 1
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$state" ] && [ "$state" != Z ]
}

engine_fault() { # signal: the engine goes away, stays away a moment, comes back
	local pid down
	pid=$(engine_pid)
	kill -"$1" "$pid" || die "kill -$1 $pid"
	for _ in $(seq 300); do alive "$pid" || break; sleep 0.1; done
	alive "$pid" && die "engine $pid outlived SIG$1"
	down=$((1 + RANDOM % 3))
	say "engine $pid ended by SIG$1; restarting it in ${down}s"
	sleep "$down"
	engine_start
}

engine_setup() {
	if [ "$ENGINE" = docker ]; then
		engine_start
		bash tests/private-dockerd.sh load "$PE" "$IMAGE" || die "loading $IMAGE"
		return
	fi
	mkdir -p "$PM"
	cat >"$PM/containers.conf" <<-EOF
		[engine]
		cgroup_manager = "cgroupfs"
		events_logger = "file"
		runtime = "crun"
	EOF
	# The host's Podman set-up knows the limits a container host allows.
	if [ -r /var/lib/hrr-docker-replay-test/podman/root/containers.conf ]; then
		grep -A1 '^\[containers\]' /var/lib/hrr-docker-replay-test/podman/root/containers.conf \
			>>"$PM/containers.conf" || true
	fi
	engine_start
	DOCKER_HOST=unix:///var/run/docker.sock docker save -o "$ROOT/image.tar" "$IMAGE" \
		|| die "saving $IMAGE from the host's dockerd"
	pm load -q -i "$ROOT/image.tar" >/dev/null || die "loading $IMAGE into the soak's podman"
	rm -f "$ROOT/image.tar"
}

containers_left() { # every container on the private engine is the soak's
	curl -sf --max-time 10 --unix-socket "$(sock)" 'http://localhost/containers/json?all=1' \
		| python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'
}

teardown() {
	local p
	[ -n "${READER:-}" ] && kill "$READER" 2>/dev/null && wait "$READER" 2>/dev/null
	[ -n "${SWEEP:-}" ] && kill -KILL "$SWEEP" 2>/dev/null
	if [ "$ENGINE" = docker ]; then
		bash tests/private-dockerd.sh remove "$PE" >/dev/null 2>&1
	else
		pm rm -af -t 0 >/dev/null 2>&1
		p=$(cat "$PM/service.pid" 2>/dev/null) && kill "$p" 2>/dev/null
		for p in /proc/[0-9]*; do
			case $(tr '\0' ' ' 2>/dev/null <"$p/cmdline") in
			*conmon*"$PM/"*) kill -KILL "${p#/proc/}" 2>/dev/null ;;
			esac
		done
		pm system reset -f >/dev/null 2>&1 || true
	fi
	for m in $(awk -v d="$ROOT/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	if [ "${HRR_SOAK_KEEP:-0}" = 1 ]; then say "kept $ROOT"; else rm -rf "$ROOT"; fi
}
trap teardown EXIT

# ---- the host: four fake GPUs, a library, a small workdir filesystem ----

mknod "$DEV/kfd" c 1 3
for m in 128 129 130 131; do mknod "$DEV/dri/renderD$m" c 226 $m; done
SYSFS=$SRC/tests/fixtures/sysfs/mi300x-4
for i in $(seq 0 $((CASES - 1))); do
	mkdir -p "$LIB/c$i"
	cp -r tests/fixtures/archives/pass/capture.hrr "$LIB/c$i/"
done
# Room for the sweep with a margin: the filler takes the rest when asked.
FS_MB=$((64 + CASES / 8))
mount -t tmpfs -o "size=${FS_MB}m,mode=0755" tmpfs "$FS" || die "mount tmpfs on $FS"
mkdir -p "$WORK"
engine_setup

export DOCKER_HOST=unix://$(sock)
export HRR_LOCK_DIR=$LOCKS
SWEEP_ARGS=(--workdir "$WORK" --device-root "$DEV" --sysfs-root "$SYSFS" --db "$DB"
	--timeout 60 --stop-grace 2 --pull never --retry-failed 2 --format json -q)

# ---- the faults, at finished-attempt counts drawn from the seed ----

faults=(engine-kill sweep-kill disk-full engine-term)
for i in 3 2 1; do # Fisher-Yates, then SIGKILL before SIGTERM
	j=$((RANDOM % (i + 1)))
	t=${faults[$i]}; faults[$i]=${faults[$j]}; faults[$j]=$t
done
ki=-1; ti=-1
for i in "${!faults[@]}"; do
	case ${faults[$i]} in engine-kill) ki=$i ;; engine-term) ti=$i ;; esac
done
[ $ti -lt $ki ] && { faults[$ki]=engine-term; faults[$ti]=engine-kill; }
points=()
span=$((CASES * 7 / 10))
for i in 0 1 2 3; do points+=($((CASES / 10 + RANDOM % span))); done
mapfile -t points < <(printf '%s\n' "${points[@]}" | sort -n)
say "seed $SEED: $CASES cases on 4 fake GPUs; faults: $(for i in 0 1 2 3; do printf '%s@%s ' "${faults[$i]}" "${points[$i]}"; done)"

# ---- the reader: history site in a loop, read transactions all along ----

( while :; do "$BIN" history site "$SITE" --db "$DB" >/dev/null 2>>"$LOG/reader.err"; sleep 0.2; done ) &
READER=$!

# ---- the sweep ----

SWEEP=
RUNS=0
FOLDER=
start_sweep() { # args...
	RUNS=$((RUNS + 1))
	"$BIN" sweep "${SWEEP_ARGS[@]}" "$@" >"$LOG/sweep-$RUNS.out" 2>"$LOG/sweep-$RUNS.err" &
	SWEEP=$!
}
finished() { [ -n "$FOLDER" ] && [ -f "$FOLDER/results.jsonl" ] && wc -l <"$FOLDER/results.jsonl" || echo 0; }
sweep_id() { basename "$FOLDER"; }

start_sweep --image "$IMAGE" --archive "$LIB"
for _ in $(seq 600); do
	FOLDER=$(ls -d "$WORK"/sweeps/*/ 2>/dev/null | head -1)
	[ -n "$FOLDER" ] && break
	alive "$SWEEP" || break
	sleep 0.1
done
FOLDER=${FOLDER%/}
[ -n "$FOLDER" ] || { cat "$LOG/sweep-1.err" >&2; die "the sweep made no folder"; }

INJECTED=0
ENGINE_RESTARTS=0
SWEEP_KILLS=0
DISK_FULLS=0
DISK_MESSAGE=
RESUMES=0
wait_sweep() { # -> its exit status in SWEEP_RC
	wait "$SWEEP"
	SWEEP_RC=$?
	SWEEP=
}

resume() {
	RESUMES=$((RESUMES + 1))
	start_sweep --resume "$(sweep_id)"
}

fi=0
while [ $fi -lt 4 ]; do
	if ! alive "$SWEEP"; then
		wait_sweep
		say "the sweep ended (exit $SWEEP_RC) at $(finished) attempts before ${faults[$fi]}@${points[$fi]}: resuming"
		resume
		continue
	fi
	if [ "$(finished)" -lt "${points[$fi]}" ]; then
		sleep 0.1
		continue
	fi
	say "${faults[$fi]} at $(finished) finished attempts"
	INJECTED=$((INJECTED + 1))
	case ${faults[$fi]} in
	engine-kill) engine_fault KILL; ENGINE_RESTARTS=$((ENGINE_RESTARTS + 1)) ;;
	engine-term) engine_fault TERM; ENGINE_RESTARTS=$((ENGINE_RESTARTS + 1)) ;;
	sweep-kill)
		kill -KILL "$SWEEP"
		wait_sweep
		SWEEP_KILLS=$((SWEEP_KILLS + 1))
		resume
		;;
	disk-full)
		# Fill the workdir's file system until a write fails, then
		# wait for the sweep to stop on it (or to end), free it, resume.
		dd if=/dev/zero of="$FS/filler" bs=64k >/dev/null 2>&1
		DISK_FULLS=$((DISK_FULLS + 1))
		for _ in $(seq 1200); do alive "$SWEEP" || break; sleep 0.1; done
		if alive "$SWEEP"; then
			say "the sweep still runs 120 s after its disk filled: stopping it"
			kill -TERM "$SWEEP"
		fi
		wait_sweep
		# The sweep's own stop (its workers say what they could not write).
		DISK_MESSAGE=$(grep 'stopping the sweep' "$LOG/sweep-$RUNS.err")
		say "the sweep stopped on the full disk (exit $SWEEP_RC): ${DISK_MESSAGE:-<no message>}"
		rm -f "$FS/filler"
		resume
		;;
	esac
	fi=$((fi + 1))
done
wait_sweep
# What is left for --resume (errors after --retry-failed) gets it, as a
# user would give it; twice at most.
for _ in 1 2; do
	if [ "$SWEEP_RC" = 0 ]; then break; fi
	say "the sweep ended with exit $SWEEP_RC: resuming what is left"
	resume
	wait_sweep
done
kill "$READER" 2>/dev/null
wait "$READER" 2>/dev/null
READER=

# ---- what must hold ----

LEFT_CONTAINERS=$(containers_left || echo "?")
HELD=0
for f in "$LOCKS"/*; do
	[ -f "$f" ] || continue
	flock -n "$f" true || HELD=$((HELD + 1))
done
TEMPS=$(find "$WORK" "$ROOT/db" "$SITE" -name '*.tmp-*' 2>/dev/null | wc -l)
INTEGRITY=$(sqlite3 "$DB" 'PRAGMA integrity_check;' 2>&1)
"$BIN" history --db "$DB" --last 1 --format json >"$LOG/history.json" 2>"$LOG/history.err"
python3 - "$FOLDER" "$LOG/history.json" "$LOG/figures" <<'EOF'
import json, sys, collections
import xml.etree.ElementTree as ET
folder, history, out = sys.argv[1:4]
# The plan's header, and its cases one a line (docs/formats.md "Sweep plan
# files").
plan = json.load(open(folder + "/plan.json"))
cases = [json.loads(l) for l in open(folder + "/plan-cases.jsonl")]
planned = [(c["name"], c["image"]) for c in cases]
lines = []
for l in open(folder + "/results.jsonl"):
    try:
        lines.append(json.loads(l))
    except ValueError:
        pass  # a torn last line: skipped by the reader too
attempts = collections.Counter((r["case"], r["image"], r["attempt"]) for r in lines)
final = {}
for r in lines:
    k = (r["case"], r["image"])
    if k not in final or r["attempt"] >= final[k]["attempt"]:
        final[k] = r
summary = json.load(open(folder + "/summary.json"))
names = collections.Counter((c["case"], c["image"]) for c in summary["cases"])
rows = collections.Counter((r["case"], r["image"]) for r in json.load(open(history))
                           if r["sweep"] == plan["sweep"])
junit = collections.Counter()
for tc in ET.parse(folder + "/junit.xml").iter("testcase"):
    junit[tc.get("name")] += 1
lost = {k for k in planned if k not in final or k not in names or k not in rows}
dup = sum(n - 1 for n in attempts.values() if n > 1) + sum(n - 1 for n in names.values() if n > 1) \
    + sum(n - 1 for n in rows.values() if n > 1)
# A no-op case passes: any other verdict is an engine fault taken for one.
verdicts = [r for r in lines if r["state"] == "done" and r.get("outcome") != "PASS"]
errors = [r for r in lines if r["state"] == "error"]
unlabelled = [r for r in errors if r.get("kind") != "infrastructure"]
outcomes = collections.Counter(r["state"] if r["state"] != "done" else r["outcome"] for r in final.values())
susp = len(summary.get("suspect_gpus") or []) + len(summary.get("quarantined_gpus") or [])
retries = sum(1 for r in lines if r["attempt"] > 1)
with open(out, "w") as f:
    print(f"planned={len(planned)} lost={len(lost)} duplicated={dup} attempts={len(lines)} "
          f"retries={retries} infra_errors={len(errors)} unlabelled_errors={len(unlabelled)} "
          f"false_verdicts={len(verdicts)} suspect_or_quarantined={susp} "
          f"junit_cases={sum(junit.values())} final={dict(outcomes)}", file=f)
EOF
FIG=$(cat "$LOG/figures" 2>/dev/null)
get() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$FIG"; }
WALL=$((SECONDS - START))

fail=()
[ "$(get planned)" = "$CASES" ] || fail+=("planned $(get planned), want $CASES")
[ "$(get lost)" = 0 ] || fail+=("lost $(get lost)")
[ "$(get duplicated)" = 0 ] || fail+=("duplicated $(get duplicated)")
[ "$(get false_verdicts)" = 0 ] || fail+=("$(get false_verdicts) engine fault(s) taken for a verdict")
[ "$(get unlabelled_errors)" = 0 ] || fail+=("$(get unlabelled_errors) error(s) not of kind infrastructure")
[ "$(get suspect_or_quarantined)" = 0 ] || fail+=("a GPU made suspect or quarantined")
[ "$(get junit_cases)" = "$CASES" ] || fail+=("junit.xml has $(get junit_cases) cases")
[ "$LEFT_CONTAINERS" = 0 ] || fail+=("$LEFT_CONTAINERS container(s) left")
[ "$HELD" = 0 ] || fail+=("$HELD lease(s) held")
[ "$TEMPS" = 0 ] || fail+=("$TEMPS temporary file(s) left")
[ "$INTEGRITY" = ok ] || fail+=("integrity_check: $INTEGRITY")
[ "$SWEEP_RC" = 0 ] || fail+=("the last sweep exited $SWEEP_RC")
[ "$ENGINE_RESTARTS" -ge 2 ] || fail+=("$ENGINE_RESTARTS engine restarts")
[ "$SWEEP_KILLS" = 1 ] || fail+=("$SWEEP_KILLS sweep kills")
[ "$DISK_FULLS" = 1 ] || fail+=("$DISK_FULLS full disks")
[ -n "$DISK_MESSAGE" ] && [ "$(wc -l <<<"$DISK_MESSAGE")" = 1 ] || fail+=("the full-disk stop said: ${DISK_MESSAGE:-nothing}")
if grep -qi 'suspect\|quarantined' "$LOG"/sweep-*.err; then
	fail+=("a sweep named a GPU suspect or quarantined: $(grep -hi 'suspect\|quarantined' "$LOG"/sweep-*.err | head -1)")
fi

echo "soak[$ENGINE]: seed $SEED; $CASES cases, $INJECTED faults injected (engine restarts $ENGINE_RESTARTS," \
	"sweep SIGKILLs $SWEEP_KILLS, full disks $DISK_FULLS), $RUNS sweep runs ($RESUMES resumes)"
echo "soak[$ENGINE]: $FIG"
echo "soak[$ENGINE]: left behind: $LEFT_CONTAINERS containers, $HELD leases, $TEMPS temporary files;" \
	"integrity_check $INTEGRITY; wall time ${WALL}s"
echo "soak[$ENGINE]: the full-disk stop: ${DISK_MESSAGE:-<none>}"
if [ ${#fail[@]} -gt 0 ]; then
	for f in "${fail[@]}"; do echo "soak[$ENGINE]: FAILED: $f"; done
	# The workdir's tmpfs goes with the teardown: keep what tells why.
	cp "$FOLDER"/results.jsonl "$FOLDER"/summary.json "$LOG/" 2>/dev/null
	HRR_SOAK_KEEP=1
	exit 1
fi
echo "soak[$ENGINE]: ok"
