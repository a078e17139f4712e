#!/bin/sh
# Install the Debian 12 packages cdyn needs to build, test and draw its
# figures: the build's, Check, gnuplot, GNU parallel, and what the shell
# tests need so that `make check` skips none of them (python3's jsonschema
# and pandas, Chromium for the browser viewer's test), and libbullet-dev
# (Bullet 3.24, the peer of `make bench`'s cloth section).  Uses sudo when
# not run as root.
#
#   ./install-deps.sh [--no-chromium] [--no-pandas] [PACKAGE...]
#
# --no-chromium leaves Chromium out (about 290 MB installed; then
# tests/viewer.test is skipped), --no-pandas leaves python3-pandas out
# (about 65 MB with numpy; then tests/pandas.test is skipped).  Further
# packages named as arguments are installed in the same transaction.
# `--list` (with the same options) prints the packages and installs
# nothing.
set -e
BUILD="build-essential autoconf automake libtool pkg-config libgsl-dev liblapacke-dev libopenblas-dev libsuitesparse-dev libgmp-dev libjansson-dev check gnuplot-nox parallel libbullet-dev"
TESTS="python3 python3-jsonschema"
chromium=chromium
pandas=python3-pandas
list=no
while [ $# -gt 0 ]; do
  case $1 in
    --no-chromium) chromium= ;;
    --no-pandas) pandas= ;;
    --list) list=yes ;;
    --help|-h) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "install-deps.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
PACKAGES="$BUILD $TESTS $pandas $chromium"
if [ "$list" = yes ]; then
  echo $PACKAGES "$@"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $PACKAGES "$@"
