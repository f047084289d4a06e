# The engine-facing integration suites (sourced by tests/podman-check.sh and
# tests/engine-matrix.sh), and the count of what they leave in an engine:
# replays with every finding and exit code, interrupts, gc, the image list,
# pulls with credentials, preflight probes, the Podman-only suite, and a
# sweep's image budget over six registry images (sweep_images, which builds
# and pushes its images through the engine under test).
# PULL_FILTERS need the loopback registries (127.0.0.1:5000/5001), which an
# engine in a container of its own network (tests/engine-matrix.sh) cannot
# reach.
ENGINE_FILTERS=(
	'run/pass_exits_0'
	'engine_basics/images_are_listed_by_reference_with_every_tag'
	'run/container_spec_is_exactly_what_cli_md_says'
	'run/hang_is_stopped_by_the_timeout'
	'run/interrupt_stops_the_container_and_keeps_the_log'
	'run/a_second_interrupt_skips_the_grace'
	'run/gc_removes_what_a_killed_orchestrator_left'
	'run/gc_removes_probe_containers_only_once_they_are_stale'
	'run/absent_image_with_pull_never_exits_5'
	'run_findings/*'
	'run_json/a_finding_carries_the_exit_code'
	'run_preflight/preflight_command_reports_without_replaying'
	'preflight_probe/*'
	'podman/*'
)
PULL_FILTERS=(
	'run/pulls_a_missing_image_from_a_registry_and_records_its_digest'
	'run/registry_refusing_credentials_exits_5'
	'run/image_missing_from_registry_exits_5'
	'engine_registry/*'
	'sweep_images/a_budget_counts_a_shared_base_once_over_six'
)

# How many containers of the tests the engine at socket $1 still holds
# (labels of the tool and of the engine suites).
leftovers() {
	local sock=$1 l
	for l in hrr-docker-replay.run hrr-docker-replay.test hrr-docker-replay.probe; do
		curl -s --unix-socket "$sock" -G http://localhost/v1.41/containers/json \
			--data-urlencode all=1 --data-urlencode "filters={\"label\":[\"$l\"]}"
	done | { grep -o '"Id":"[0-9a-f]*"' || true; } | sort -u | wc -l
}
