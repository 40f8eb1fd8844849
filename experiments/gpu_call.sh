#!/usr/bin/env bash
# The device call around experiments/gpu_campaign.sh (docs/design.md §10, "GPU latency"):
#
#   bash experiments/gpu_call.sh OUT [--dry-run]
#
# The device tool brings back at most 8 files from OUT, and the campaign writes a shard per batch, so the
# campaign writes to a work folder and this packs it into OUT/campaign.tgz: every 30 s while it runs (so a
# call cut short by the session's device time still returns every row so far) and once at the end, beside
# OUT/campaign.log.  On the CPU, `python experiments/gpu_collect.py OUT/campaign.tgz` files the rows.
# Environment: CAMPAIGN_WORK (default /tmp/campaign), and all of gpu_campaign.sh's.
set -u
OUT=${1:?usage: bash experiments/gpu_call.sh OUT [--dry-run]}
WORK=${CAMPAIGN_WORK:-/tmp/campaign}
mkdir -p "$OUT" "$WORK"
pack() { tar czf "$OUT/campaign.tgz.part" -C "$WORK" . 2>/dev/null && mv "$OUT/campaign.tgz.part" "$OUT/campaign.tgz"; }
# The packer naps in a child it can wake: killed mid-nap, it stops its sleep too (an orphaned sleep would
# hold the caller's output pipe open for up to 30 s after the campaign ended).
(trap 'kill "$nap" 2>/dev/null; exit 0' TERM
 while :; do sleep 30 & nap=$!; wait "$nap"; pack; done) &
PACKER=$!
bash "$(dirname "$0")/gpu_campaign.sh" "$WORK" "${@:2}"
rc=$?
kill "$PACKER" 2>/dev/null
wait "$PACKER" 2>/dev/null
pack
rm -f "$OUT/campaign.tgz.part"
cp "$WORK/campaign.log" "$OUT/"
exit $rc
