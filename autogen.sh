#!/bin/sh
# Regenerate the build system: ./autogen.sh && ./configure && make
set -e
cd "$(dirname "$0")"
mkdir -p m4
# The sources of the type objects, from their tables (see the script).
sh build-aux/types-am.sh . > lib/types.am.tmp && mv lib/types.am.tmp lib/types.am
autoreconf -fi
