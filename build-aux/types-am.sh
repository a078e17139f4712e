#!/bin/sh
# types-am.sh SRCDIR: write, on standard output, the automake fragment that
# lists the sources of libcdyn's type objects (constraint types, linear
# solvers, integrators, schemes, active-set algorithms), read from their
# tables lib/*/*.def, and of the cdyn program's experiments, read from
# experiments/studies/experiments.def; the tables' lines are CDYN_<KIND>(id, file).  ./autogen.sh
# writes it to lib/types.am before automake runs, so that adding a type is
# one file plus one table line; `make` checks that lib/types.am is current.
set -e
srcdir=${1:-.}
echo "# Generated from the lib/*/*.def tables by build-aux/types-am.sh (run by"
echo "# ./autogen.sh).  Do not edit: add a line to the table instead."
# sources TABLE...: the file of each line of the tables (paths from the
# top), each file once, in the tables' order.
sources() {
  for def in "$@"; do
    dir=${def%/*}
    test -r "$srcdir/$def" || { echo "types-am.sh: cannot read $srcdir/$def" >&2; exit 1; }
    sed -n 's/^CDYN_[A-Z]*([ 	]*[A-Za-z0-9_]*[ 	]*,[ 	]*\([A-Za-z0-9_]*\)[ 	]*).*/\1/p' "$srcdir/$def" |
      awk '!seen[$0]++' | while read -r f; do
        test -r "$srcdir/$dir/$f.c" ||
          { echo "types-am.sh: $def names $f, but $dir/$f.c does not exist" >&2; exit 1; }
        printf ' \\\n\t%s/%s.c' "$dir" "$f"
      done
  done
}
printf 'TYPE_SOURCES ='
sources lib/constraints/constraints.def lib/solvers/solvers.def lib/integrators/integrators.def \
  lib/schemes/schemes.def lib/activeset/activesets.def
echo
# The experiments of the cdyn program (experiments/local.mk).
printf 'EXPERIMENT_SOURCES ='
sources experiments/studies/experiments.def
echo
# Their names, for make figures (paper_figs/local.mk): an experiment's
# name is its id with '-' for '_' (tests/scenes.test checks this against
# the names the program lists).
printf 'EXPERIMENT_NAMES ='
sed -n 's/^CDYN_EXPERIMENT([ 	]*\([A-Za-z0-9_]*\)[ 	]*,.*/\1/p' "$srcdir/experiments/studies/experiments.def" |
  tr '_' '-' | while read -r n; do printf ' \\\n\t%s' "$n"; done
echo
