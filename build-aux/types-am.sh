#!/bin/sh
# types-am.sh SRCDIR: write, on standard output, the automake fragment that
# lists the sources of libcdyn's type objects (constraint types, linear
# solvers, integrators, schemes, active-set algorithms), read from their
# tables lib/*/*.def, whose lines are CDYN_<KIND>(id, file).  ./autogen.sh
# writes it to lib/types.am before automake runs, so that adding a type is
# one file plus one table line; `make` checks that lib/types.am is current.
set -e
srcdir=${1:-.}
echo "# Generated from the lib/*/*.def tables by build-aux/types-am.sh (run by"
echo "# ./autogen.sh).  Do not edit: add a line to the table instead."
printf 'TYPE_SOURCES ='
for def in constraints/constraints.def solvers/solvers.def integrators/integrators.def \
    schemes/schemes.def activeset/activesets.def; do
  dir=${def%/*}
  test -r "$srcdir/lib/$def" || { echo "types-am.sh: cannot read $srcdir/lib/$def" >&2; exit 1; }
  # The file of each line, each file once, in the table's order.
  sed -n 's/^CDYN_[A-Z]*([ 	]*[A-Za-z0-9_]*[ 	]*,[ 	]*\([A-Za-z0-9_]*\)[ 	]*).*/\1/p' "$srcdir/lib/$def" |
    awk '!seen[$0]++' | while read -r f; do
      test -r "$srcdir/lib/$dir/$f.c" ||
        { echo "types-am.sh: lib/$def names $f, but lib/$dir/$f.c does not exist" >&2; exit 1; }
      printf ' \\\n\tlib/%s/%s.c' "$dir" "$f"
    done
done
echo
