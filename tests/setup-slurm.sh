#!/usr/bin/env bash
# Brings up a single-node Slurm cluster for the cluster tests: munged,
# slurmctld and slurmd on this host, one partition, four GPUs declared in
# gres.conf as the fake render nodes of tests/setup-fake-gpus.sh (char
# 226,128..131, matching the KFD topology fixture
# tests/fixtures/sysfs/mi300x-4), in index order. No systemd: the
# daemons are started directly. Idempotent: a cluster that answers is left
# alone; dead daemons are restarted.
#
# Everything lives under $HRR_SLURM_DIR (default <test state>/slurm):
#   etc/slurm.conf, etc/gres.conf, etc/cgroup.conf   the configuration
#   spool/, log/, run/                                daemon state
# Clients find the configuration through /etc/slurm/slurm.conf, a symlink
# made only when that file does not exist (a site's own configuration is
# never replaced); otherwise export SLURM_CONF=$HRR_SLURM_DIR/etc/slurm.conf.
#
# Tunables (environment):
#   HRR_SLURM_DIR                 where the cluster lives
#   HRR_SLURM_CPUS                CPUs the node declares (default 16; more
#                                 than the host has, so array tasks that
#                                 mostly wait run side by side)
#   HRR_SLURM_SCHED_INTERVAL      main scheduler pass, seconds (default 2)
#   HRR_SLURM_CONSTRAIN_DEVICES   1: task/cgroup with ConstrainDevices=yes
#                                 (needs the cgroup v1 devices controller),
#                                 0: task/none; default 1 when that
#                                 controller is mounted, as on most sites
#   HRR_SLURM_RESTART=1           rewrite the configuration and restart
#                                 the daemons even when they answer
set -euo pipefail

STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
DIR=${HRR_SLURM_DIR:-$STATE/slurm}
NODE=$(hostname -s)
CPUS=${HRR_SLURM_CPUS:-16}
SCHED=${HRR_SLURM_SCHED_INTERVAL:-2}
if [ -w /sys/fs/cgroup/devices/devices.allow ] && [ -d /sys/fs/cgroup/freezer ]; then
	CONSTRAIN=${HRR_SLURM_CONSTRAIN_DEVICES:-1}
else
	CONSTRAIN=${HRR_SLURM_CONSTRAIN_DEVICES:-0}
fi
GPUS=4
CONF=$DIR/etc/slurm.conf

SETUP_NAME=setup-slurm
. "$(dirname "$0")/setup-lib.sh"

require_root "munged, slurmctld and slurmd are started here"
require_cmds "munge and slurm-wlm" munged slurmctld slurmd sinfo

mkdir -p "$DIR"/{etc,log,run,spool/ctld,spool/d}
export SLURM_CONF=$CONF

munge_answers() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
	munge_answers && return 0
	if [ ! -s /etc/munge/munge.key ]; then
		say "creating the munge key"
		mungekey --create --keyfile=/etc/munge/munge.key
		chown munge:munge /etc/munge/munge.key
		chmod 600 /etc/munge/munge.key
	fi
	mkdir -p /run/munge /var/log/munge /var/lib/munge
	chown munge:munge /run/munge /var/log/munge /var/lib/munge
	say "starting munged"
	(cd / && runuser -u munge -- munged)
	wait_for 20 munged munge_answers
}

write_config() {
	local task=task/none proctrack=proctrack/linuxproc i
	if [ "$CONSTRAIN" = 1 ]; then
		task=task/cgroup
		proctrack=proctrack/cgroup
	fi
	# Scheduler pace: the defaults (a 60 s main pass, 300 s before a dead
	# slurmd is noticed, 30 s between SIGTERM and SIGKILL) would make each
	# test step wait a minute.
	cat >"$CONF.new" <<EOF
# Written by tests/setup-slurm.sh; edit that script, not this file.
ClusterName=hrrtest
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$DIR/spool/ctld
SlurmdSpoolDir=$DIR/spool/d
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=${HRR_SLURM_CTLD_PORT:-6817}
SlurmdPort=${HRR_SLURM_D_PORT:-6818}
MailProg=/bin/true
MpiDefault=none
ProctrackType=$proctrack
TaskPlugin=$task
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=$SCHED,batch_sched_delay=0,sched_min_interval=100000
GresTypes=gpu
ReturnToService=2
SlurmdParameters=config_overrides
MessageTimeout=${HRR_SLURM_MESSAGE_TIMEOUT:-5}
SlurmdTimeout=${HRR_SLURM_SLURMD_TIMEOUT:-30}
SlurmctldTimeout=30
InactiveLimit=0
KillWait=${HRR_SLURM_KILL_WAIT:-5}
MinJobAge=${HRR_SLURM_MIN_JOB_AGE:-600}
CompleteWait=0
MaxArraySize=1001
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=1000 Gres=gpu:$GPUS State=UNKNOWN
PartitionName=hrr Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
	# gres.conf order is the GPUs' index order: renderD128 is index 0.
	{
		echo "# Written by tests/setup-slurm.sh."
		for ((i = 0; i < GPUS; i++)); do
			echo "NodeName=$NODE Name=gpu File=$DEV/dri/renderD$((128 + i))"
		done
	} >"$DIR/etc/gres.conf.new"
	cat >"$DIR/etc/cgroup.conf.new" <<EOF
CgroupPlugin=cgroup/v1
ConstrainDevices=$([ "$CONSTRAIN" = 1 ] && echo yes || echo no)
EOF
	local f
	for f in slurm.conf gres.conf cgroup.conf; do
		if cmp -s "$DIR/etc/$f.new" "$DIR/etc/$f"; then
			rm "$DIR/etc/$f.new"
		else
			mv "$DIR/etc/$f.new" "$DIR/etc/$f"
			CONFIG_CHANGED=1
		fi
	done
	if [ ! -e /etc/slurm/slurm.conf ] && [ ! -L /etc/slurm/slurm.conf ]; then
		mkdir -p /etc/slurm
		ln -s "$CONF" /etc/slurm/slurm.conf
	fi
}

ctld_answers() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
node_ready() { sinfo -h -n "$NODE" -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; }

start_daemons() {
	local restart=$1
	if [ "$restart" = 1 ]; then
		stop_pidfile "$DIR/run/slurmd.pid"
		stop_pidfile "$DIR/run/slurmctld.pid"
	fi
	if ! alive "$DIR/run/slurmctld.pid"; then
		say "starting slurmctld (log: $DIR/log/slurmctld.log)"
		(cd / && slurmctld -f "$CONF")
	fi
	wait_for 30 slurmctld ctld_answers || { tail -20 "$DIR/log/slurmctld.log" >&2; exit 1; }
	if ! alive "$DIR/run/slurmd.pid"; then
		say "starting slurmd (log: $DIR/log/slurmd.log)"
		(cd / && slurmd -f "$CONF")
	fi
	if ! wait_for 30 "node $NODE" node_ready; then
		# a node drained by an earlier failure comes back once it answers
		scontrol update nodename="$NODE" state=resume 2>/dev/null || true
		wait_for 10 "node $NODE" node_ready || {
			sinfo -R >&2
			tail -20 "$DIR/log/slurmd.log" >&2
			exit 1
		}
	fi
}

start_munge
DEV=$(bash "$(dirname "$0")/setup-fake-gpus.sh")
CONFIG_CHANGED=0
write_config
start_daemons "$([ "${HRR_SLURM_RESTART:-0}" = 1 ] || [ $CONFIG_CHANGED = 1 ] && echo 1 || echo 0)"
say "ready: node $NODE, $GPUS GPUs ($DEV/dri), SLURM_CONF=$CONF"
