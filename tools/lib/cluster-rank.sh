#!/bin/sh
# cluster-rank.sh RESULTS [RUN-SUITE-OPTION...] - what each rank of
# `tools/cluster suite` runs: tools/run-suite -v on this rank's GPU, its log in
# RESULTS/rank-N/suite.log, where it ran in RESULTS/rank-N/where and its exit
# status, written last, in RESULTS/rank-N/status.  Not a tool of its own.
set -u
cd "$(dirname "$0")/../.."
results=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-}}
local=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-}}
if [ -z "$rank" ] || [ -z "$local" ]; then
    echo "cluster-rank.sh: neither Open MPI nor Slurm gave this process a rank (run it through tools/cluster)" >&2
    exit 2
fi
# This rank's GPU: the local rank's, among those the launcher left visible.
case ${CUDA_VISIBLE_DEVICES-} in
'') CUDA_VISIBLE_DEVICES=$local ;;
*,*) CUDA_VISIBLE_DEVICES=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' |
    awk -v k="$local" '{ gpu[n++] = $0 } END { print gpu[k % n] }') ;;
esac
export CUDA_VISIBLE_DEVICES
dir=$results/rank-$rank
mkdir -p "$dir"
printf 'host=%s gpu=%s local_rank=%s\n' "$(hostname)" "$CUDA_VISIBLE_DEVICES" "$local" >"$dir/where"
tools/run-suite -v "$@" >"$dir/suite.log" 2>&1
status=$?
echo $status >"$dir/status.tmp" && mv "$dir/status.tmp" "$dir/status"
exit $status
