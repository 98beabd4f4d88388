#!/usr/bin/env bash
# `make demo`: the main job on an emulated cluster, as an operator would run it.
# Start a 4-broker sandbox, look at the disks, plan draining broker 3, execute the plan with a
# throttle, watch it move, verify (which removes the throttles kadmin set), then even out the
# disks inside each broker. Everything runs on 127.0.0.1 and is stopped at the end.
set -euo pipefail

work=$(mktemp -d "${TMPDIR:-/tmp}/kadmin-demo.XXXXXX")
state="$work/sandbox"
cleanup() {
  kadmin sandbox stop --state-dir "$state" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

bold=$(tput bold 2>/dev/null || true); plain=$(tput sgr0 2>/dev/null || true)
step() { printf '\n%s== %s%s\n' "$bold" "$1" "$plain"; }
run() { printf '%s$ %s%s\n' "$bold" "$*" "$plain"; "$@"; }

step "Start an emulated Kafka cluster: 4 brokers x 2 disks, 2 racks, time sped up 20x"
printf '%s$ kadmin sandbox start --detach --brokers 4 --log-dirs 2 --racks 2 --speed 20%s\n' "$bold" "$plain"
KADMIN_BOOTSTRAP_SERVER=$(kadmin sandbox start --detach --brokers 4 --log-dirs 2 --racks 2 --speed 20 \
  --state-dir "$state")
export KADMIN_BOOTSTRAP_SERVER
echo "bootstrap: $KADMIN_BOOTSTRAP_SERVER (exported as KADMIN_BOOTSTRAP_SERVER)"

step "Where are the bytes?"
run kadmin log-dirs describe

step "Plan: drain broker 3 of the orders and payments topics (brokers left out are evacuated)"
echo '{"version":1,"topics":[{"topic":"orders"},{"topic":"payments"}]}' > topics.json
run kadmin reassign generate --topics-to-move-json-file topics.json --broker-list 0,1,2 --output-file plan.json

step "A plan with a mistake changes nothing (exit 2, every problem listed)"
echo '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[0,0,9]},{"topic":"nope","partition":0,"replicas":[1]}]}' > bad.json
run kadmin reassign execute --reassignment-json-file bad.json || echo "(exit code $?)"

step "Execute with a 60 MB/s throttle (the rollback file is written first)"
run kadmin reassign execute --reassignment-json-file plan.json --throttle 60MB/s --rollback-file rollback.json

step "Watch it move: bytes, rate and ETA per replica"
run kadmin reassign progress --reassignment-json-file plan.json --watch --interval 1s || true

step "Verify: complete, and the throttles this plan set are removed"
run kadmin reassign verify --reassignment-json-file plan.json
run kadmin throttle show

step "Even out the disks inside each broker (KIP-113's JBOD procedure as a command)"
run kadmin log-dirs balance --output-file disks.json
step "Execute it and wait: follows the moves, then verifies and removes its own throttle"
run kadmin reassign execute --reassignment-json-file disks.json --replica-alter-log-dirs-throttle 200MB/s \
  --wait --interval 1s
run kadmin throttle show
run kadmin log-dirs describe

step "Leadership after the moves: who leads against the preferred replica (the first of each list)"
run kadmin leaders show
step "Elect the preferred leaders, at most 5 new leaders per broker at a time: leadership balanced again"
run kadmin leaders elect --preferred --all-topic-partitions --max-per-broker 5
run kadmin leaders show

step "Done: the sandbox is stopped. Try it yourself: kadmin sandbox start --detach"
