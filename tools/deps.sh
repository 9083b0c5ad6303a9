#!/bin/sh
# deps.sh - installs what streamcts needs to build and run, if it is missing:
# a C compiler, ninja, perl's prove, Python 3 with Jinja2 (build time only)
# and the CUDA toolkit's nvcc and static cudart (looked for, never
# installed); with --self-test also what only the self-tests use: xmllint
# (certify.t validates junit.xml), Perl's JSON::XS (certify's tests read
# whole bundles) and Open MPI's mpirun (cluster.t).  A GPU
# machine without a network runs the suite without them.
set -eu

self_test=no
case ${1:-} in
--self-test) self_test=yes ;;
-h | --help)
    cat <<'USAGE'
usage: tools/deps.sh [--self-test]

Installs what streamcts needs and lacks, with apt-get (through sudo when not
root): a C compiler, ninja, perl's prove, Python 3 with Jinja2; with
--self-test (tools/self-test) also xmllint, Perl's JSON::XS and Open MPI's
mpirun.  The CUDA
toolkit ($CUDA_HOME, default /usr/local/cuda) is looked for, never
installed.  Exit status: 0 all there, 2 a bad argument, another non-zero
one when something is missing or could not be installed.
USAGE
    exit 0 ;;
'') ;;
*) echo "deps.sh: $1: unknown argument (it takes --self-test or nothing; see tools/deps.sh --help)" >&2; exit 2 ;;
esac

missing=
command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
command -v ninja >/dev/null 2>&1 || missing="$missing ninja-build"
command -v prove >/dev/null 2>&1 || missing="$missing perl"
if [ $self_test = yes ]; then
    command -v xmllint >/dev/null 2>&1 || missing="$missing libxml2-utils"
    command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
    perl -MJSON::XS -e 1 >/dev/null 2>&1 || missing="$missing libjson-xs-perl" # certify's tests read whole bundles
fi
have_jinja=no
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import jinja2' >/dev/null 2>&1; then
        have_jinja=yes
        break
    fi
done
[ $have_jinja = yes ] || missing="$missing python3 python3-jinja2"

if [ -n "$missing" ]; then
    echo "deps.sh: installing$missing" >&2
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ] || [ ! -f "$cuda/lib64/libcudart_static.a" ]; then
    echo "deps.sh: the CUDA toolkit is not at $cuda (need bin/nvcc and lib64/libcudart_static.a);" >&2
    echo "         install it from NVIDIA (apt package cuda-toolkit) or link /usr/local/cuda to it." >&2
    exit 1
fi
