#!/bin/sh
# build-info.sh SRCDIR CFLAGS: write, on standard output, the C header that
# records the build in every metadata record the cdyn program writes: the
# git commit of SRCDIR and whether its tracked files were modified
# ("unknown" for both outside a git checkout of SRCDIR itself, as when
# building from a release tarball), and the compiler flags.
srcdir=${1:-.}
cflags=$2
commit=unknown
modified=unknown
if top=$(git -C "$srcdir" rev-parse --show-toplevel 2>/dev/null) &&
    [ "$(cd "$top" && pwd -P)" = "$(cd "$srcdir" && pwd -P)" ]; then
  commit=$(git -C "$srcdir" rev-parse HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git -C "$srcdir" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    modified=yes
  else
    modified=no
  fi
fi
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
echo "/* Written by build-aux/build-info.sh at build time; do not edit. */"
echo "#define CDYN_BUILD_COMMIT \"$(esc "$commit")\""
echo "#define CDYN_BUILD_MODIFIED \"$(esc "$modified")\""
echo "#define CDYN_BUILD_CFLAGS \"$(esc "$cflags")\""
