#!/bin/sh
# Install the Debian 12 packages cdyn needs to build, test and draw its
# figures (and libbullet-dev, Bullet 3.24, the peer of `make bench`'s
# cloth section), and any further packages named as arguments (in the
# same transaction).  Uses sudo when not run as root.  `./install-deps.sh
# --list` prints the packages and installs nothing.
set -e
PACKAGES="build-essential autoconf automake libtool pkg-config libgsl-dev liblapacke-dev libopenblas-dev libsuitesparse-dev libgmp-dev libjansson-dev check gnuplot-nox parallel libbullet-dev"
if [ "${1:-}" = "--list" ]; then
  echo $PACKAGES
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $PACKAGES "$@"
