# common.gp: terminal, palette and style shared by every figure script.
# Every script is run as
#   gnuplot -c SCRIPT.gp FIGSRC DATADIR TERMINAL OUTPUT
# with FIGSRC this directory, DATADIR the directory holding the
# experiments' output, TERMINAL one of pdf, png, cairolatex, and OUTPUT
# the file to write (the Makefile writes to a temporary name and renames).
# `load` does not pass ARG1..ARG4 on, so each script first copies them
# into D, TERM_NAME and OUT_NAME.
#
# Sizes.  A script sets FIG_W and FIG_H (inches) before loading this file:
# the width the figure is printed at, 3.3 in for one column of a two-column
# paper or 7 in for the full width, so that the sizes below are the
# printed ones: text 9 pt, keys 8 pt (LaTeX: the document's size, 10 pt,
# and \footnotesize, 8 pt).  pdfcairo draws a font of nominal size S at
# 2/3 S points, pngcairo at 0.48 S pixels per 100 dpi, so every font size
# is given as fsz(POINTS), which scales it (a terminal's fontscale would
# do the same for the text but not for gnuplot's layout, which then puts
# a key below the plot over the x label).  The PNG is a preview of the PDF
# at 200 pixels per inch: the same layout, text and lines.
if (!exists("FIG_W")) FIG_W = 3.3
if (!exists("FIG_H")) FIG_H = 2.6
FS = (TERM_NAME eq "pdf") ? 1.5 : (TERM_NAME eq "png") ? 200.0 / 96 : 1.0
fsz(p) = sprintf(",%g", p * FS)
if (TERM_NAME eq "pdf") {
  set terminal pdfcairo size FIG_W*1in, FIG_H*1in font "Sans".fsz(9) enhanced
} else {
  if (TERM_NAME eq "png") {
    set terminal pngcairo size int(200*FIG_W), int(200*FIG_H) font "Sans".fsz(9) linewidth 1.5 enhanced
  } else {
    if (TERM_NAME eq "cairolatex") {
      set terminal cairolatex pdf size FIG_W*1in, FIG_H*1in font ",10"
    } else {
      print "unknown terminal ".TERM_NAME
      exit status 1
    }
  }
}
set output OUT_NAME
# Symbols: pdfcairo and cairolatex draw a point of size 1 about 2.4 times
# as large (against the figure) as pngcairo does; every point size is
# written `ps SIZE * PSC`, which evens them out.
PSC = (TERM_NAME eq "png" ? 1.0 : 0.45)
set pointsize PSC
# Labels: cairolatex hands every string to LaTeX, where gnuplot's enhanced
# markup ("e_n", "{/Symbol a}") is an error or prints literally.  A script
# writes each label that holds markup as lab(ENHANCED, LATEX): the first
# for pdf and png, the second (LaTeX, math in $...$) for cairolatex.
# LaTeX strings are easiest in single quotes, where a backslash is
# literal: lab("{/Symbol a}", '$\alpha$').  Outside math, LaTeX wants
# _ % & # written \_ \% \& \#.  `make check-latex-figures` compiles every
# figure with pdflatex.  A name read from the data (a run, a scheme) goes
# through nm(NAME), which escapes it for either: a researcher's scheme may
# be called my_scheme.
TEX = (TERM_NAME eq "cairolatex")
lab(e, t) = TEX ? t : e
esc_c(c) = TEX ? (c eq "_" ? '\_' : c eq "%" ? '\%' : c eq "&" ? '\&' : c eq "#" ? '\#' : \
                  c eq "^" ? '\^{}' : c eq "~" ? '\~{}' : c eq "$" ? '\$' : c eq "{" ? '\{' : \
                  c eq "}" ? '\}' : c eq '\' ? '\textbackslash{}' : c) : \
                 (c eq "_" || c eq "^" || c eq "{" || c eq "}" || c eq "@" || c eq "&" || c eq "~" || \
                  c eq '\' ? '\'.c : c)
nm(s) = strlen(s) == 0 ? "" : esc_c(s[1:1]).nm(s[2:])
# Keys.  cairolatex writes no font sizes into the .tex: LaTeX sets every
# text at the size of the document, while gnuplot spaces the rows of a key
# for the size it was given.  A key that is to be 8 pt is written `font
# KEY_SMALL` with each entry titled small(TEXT): in pdf and png that is
# 8 pt and TEXT as it is; in LaTeX \footnotesize (8 pt on a 9.5 pt
# baseline) in rows spaced for it (gnuplot's row pitch is about 0.93 of
# the size: 9.8 bp for 10.5).
KEY_SMALL = TEX ? ",10.5" : fsz(8)
small(s) = TEX ? '\footnotesize '.s : s
set datafile separator ","
set datafile missing "nan"
# gnuplot 5.4 otherwise sets and restores a SIGFPE handler (two system
# calls and a saved signal mask) around every expression of a `using`
# column, at every data line: on most of this project's figures that was
# about half of the script's time (the snapshot figures' time is in awk).  The arithmetic here is in doubles, which
# raise no SIGFPE on the platforms built for (their exceptions masked),
# and gnuplot checks an integer division by zero itself.
set datafile nofpe_trap
set grid lc rgb "#e4e4e4" lw 0.5
set key box lw 0.5 opaque samplen 2.5 spacing 1.0 font KEY_SMALL
set tics scale 0.6
# Reference solutions, limits and thresholds: black or grey, thin, dashed
# or dotted; the palette below never uses them.
set style line 4 lc rgb "#7f7f7f" lw 1.0 dt 2
set style line 5 lc rgb "#000000" lw 1.2
set style line 9 lc rgb "#000000" lw 0.8 dt 3
# Every scheme in a CSV's first column, in order of first appearance
# (for plotting one line per scheme): SCHEMES = schemes_of(file).
schemes_of(f) = system(sprintf("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%%s \", $1 }' '%s'", f))
# The runs an experiment made, in its order (EXP/runs.csv, column run),
# and those of one role (paper, extra, companion).
runs_of(exp) = system(sprintf("awk -F, 'NR > 1 { printf \"%%s \", $1 }' '%s/%s/runs.csv'", D, exp))
runs_role(exp, r) = system(sprintf("awk -F, 'NR > 1 && $3 == \"%s\" { printf \"%%s \", $1 }' '%s/%s/runs.csv'", r, D, exp))
# 1 if the word w is in the space-separated list l.
in_list(w, l) = (sum [i = 1:words(l)] (word(l, i) eq w ? 1 : 0)) > 0
#
# The palette: one style per scheme and companion run, the same in every
# figure (figures/palette.gp, written by `cdyn palette`): PAL_NAMES and the
# parallel PAL_COLOURS, PAL_DASHES (dash types 1..3) and PAL_POINTS.
# After them, fixed entries for the active-set algorithms of the contact
# experiments (runs of the contact scheme, not in the palette).  A name in
# neither (pal_index 0) gets a fallback: the n-th such name of a figure
# takes the n-th of FB_COLOURS, colours the palette does not use, never
# grey or black, so that it differs from every other curve in the plot and
# looks like no reference line.
# A figure of a run made outside `make figures` (paper_figs/scene.gp on a
# directory of `cdyn run scene`) may have no palette: every name then
# takes a fallback colour.
if (system("test -f '".D."/palette.gp' && echo yes") eq "yes") {
  load D."/palette.gp"
} else {
  PAL_NAMES = ""; PAL_COLOURS = ""; PAL_DASHES = ""; PAL_POINTS = ""
}
AS_NAMES = "platt tendency iterative lcp"
AS_COLOURS = "#800000 #469990 #000075 #e6a100"
AS_DASHES = "1 1 1 2"
AS_POINTS = "14 15 8 10"
FB_COLOURS = "#393b79 #637939 #8c6d31 #b5547a #3b7a57 #ad494a #7b4173 #5254a3"
PAL_ALL = PAL_NAMES." ".AS_NAMES
PAL_NALL = words(PAL_ALL)
pal_find(n, i) = i > PAL_NALL ? 0 : (word(PAL_ALL, i) eq n ? i : pal_find(n, i + 1))
pal_index(n) = pal_find(n, 1)
# The palette has fewer colours than names (it tells names apart by dash
# type too), so two names of one figure may share a colour.  Within a
# figure, the first name to use a colour keeps it; a later name whose
# palette colour is taken takes a fallback colour instead (its dash type
# and symbol stay its own), so that no two curves of a figure share a
# colour.  PAL_X: the names that take fallbacks (unknown ones and those),
# in order; PAL_DRAWN: every name passed so far.  A script passes every
# run list it draws through pal_use(LIST) (an assignment:
# PAL_X = pal_use(LIST)).
PAL_X = ""
PAL_DRAWN = ""
pal_base(n) = pal_index(n) <= PAL_NP ? word(PAL_COLOURS, pal_index(n)) : word(AS_COLOURS, pal_index(n) - PAL_NP)
pal_taken(c, acc) = (sum [pk = 1:words(PAL_DRAWN)] ((pal_index(word(PAL_DRAWN, pk)) > 0 && \
  !in_list(word(PAL_DRAWN, pk), acc) && pal_base(word(PAL_DRAWN, pk)) eq c) ? 1 : 0)) > 0
pal_add2(w, acc) = (PAL_DRAWN = PAL_DRAWN." ".w, acc)
pal_add(w, acc) = in_list(w, PAL_DRAWN) ? acc : \
  pal_add2(w, (pal_index(w) == 0 || pal_taken(pal_base(w), acc)) ? acc." ".w : acc)
pal_use_r(l, i, acc) = i > words(l) ? acc : pal_use_r(l, i + 1, pal_add(word(l, i), acc))
pal_use(l) = pal_use_r(l, 1, PAL_X)
pal_xslot(n) = sum [i = 1:words(PAL_X)] (word(PAL_X, i) eq n ? i : 0)
pal_fb(n) = pal_xslot(n) > 0 ? pal_xslot(n) : 1
PAL_NP = words(PAL_NAMES)
pal_colour(n) = (pal_index(n) == 0 || pal_xslot(n) > 0) ? word(FB_COLOURS, (pal_fb(n) - 1) % words(FB_COLOURS) + 1) : \
  pal_base(n)
pal_dash(n) = pal_index(n) == 0 ? (1 + 3 * int((pal_fb(n) - 1) / words(FB_COLOURS))) : \
  pal_index(n) <= PAL_NP ? int(word(PAL_DASHES, pal_index(n))) : int(word(AS_DASHES, pal_index(n) - PAL_NP))
pal_point(n) = pal_index(n) == 0 ? (pal_fb(n) % 2 ? 14 : 15) : \
  pal_index(n) <= PAL_NP ? int(word(PAL_POINTS, pal_index(n))) : int(word(AS_POINTS, pal_index(n) - PAL_NP))
# The machine a timed experiment ran on, from EXP/run.meta.json's
# "machine" record: "CPU, N processors online", or "" for a run made
# before the record existed; timed_on(EXP) is the note a figure of
# wall-clock times prints.
machine_of(exp) = system(sprintf("sed -n 's/.*\"machine\": {\"cpu\": \"\\([^\"]*\\)\", \"cpus\": \\([0-9]*\\).*/\\1, \\2 processors online/p' '%s/%s/run.meta.json' 2>/dev/null | head -n 1", D, exp))
timed_on(exp) = machine_of(exp) eq "" ? "timed on: machine not recorded" : "timed on: ".nm(machine_of(exp))
# Line width of every scheme's curve (a script may thicken the ones it
# highlights).
PAL_LW = 1.5
# A run's key entry: its name, escaped, and for a companion run its fixed
# options from EXP/runs.meta.json, e.g. "baumgarte-a0b0 (α = 0, β = 0)".
# Options named alpha, beta, ks and kd are written as symbols.
OPT_AWK = "awk -v tex=%d -v run='%s' '" . \
  "index($0, \"{\\\"name\\\": \\\"\" run \"\\\",\") { s = $0; sub(/.*\"options\": *\\{/, \"\", s); sub(/\\}.*/, \"\", s);" . \
  " gsub(/\"/, \"\", s); n = split(s, kv, /, */); out = \"\";" . \
  " for (i = 1; i <= n; i++) { split(kv[i], p, /: */); if (p[1] == \"\") continue; k = p[1];" . \
  "  if (tex) { k = (k == \"alpha\") ? \"$\\\\alpha$\" : (k == \"beta\") ? \"$\\\\beta$\" : (k == \"ks\") ? \"$k_s$\" : (k == \"kd\") ? \"$k_d$\" : k }" . \
  "  else { k = (k == \"alpha\") ? \"{/Symbol a}\" : (k == \"beta\") ? \"{/Symbol b}\" : (k == \"ks\") ? \"k_s\" : (k == \"kd\") ? \"k_d\" : k }" . \
  "  out = out (out == \"\" ? \"\" : \", \") k \" = \" p[2] }" . \
  " if (out != \"\") printf \" (%%s)\", out; exit }' '%s/%s/runs.meta.json'"
run_opts(exp, r) = system(sprintf(OPT_AWK, TEX, r, D, exp))
run_label(exp, r) = nm(r).run_opts(exp, r)
# The key under the plot, centred, in COLS columns and ROWS rows, with
# the bottom margin set to hold it and the x axis' tick labels and label:
# `eval key_below(ROWS, COLS)`.  gnuplot's own `set key below` puts the
# key's box over the x label when the key's font is not the terminal's.
# FIG_H must include KEY_H(ROWS) inches for it.
KEY_ROW = 0.145
KEY_H(rows) = rows * KEY_ROW + 0.1
key_below(rows, cols) = sprintf("set key at screen 0.5, screen %g center top vertical maxcols %d maxrows %d; " . \
  "set bmargin at screen %g", (KEY_H(rows) + 0.02) / FIG_H, cols, rows, (KEY_H(rows) + 0.48) / FIG_H)
# Runs whose curves coincide: coinc(FILE, KEY, COL, RUNS, TOL) compares,
# for each run of RUNS (in the first column of FILE) with each earlier one
# that coincides with none before it, the column COL at every key (KEY: an
# awk expression naming a point, e.g. "$2" for h); two runs coincide when
# they have the same points and |a - b| <= TOL max(|a|, |b|) at each.  It
# returns "RUN=EARLIER=SYM ..." (SYM "=" when within 1e-6, else "~"), for
# co_entry(RUN) (0: none), co_with(RUN) and co_label(RUN) to read from
# CO = coinc(...).  A figure draws such a run so that the earlier one
# shows through (symbols only, or dotted) and says so in its key.
coinc(f, key, col, grp, tol) = system("awk -F, -v col=".sprintf("%d", col)." -v tol=".sprintf("%g", tol)." -v grp='".grp."' 'BEGIN { n = split(grp, g, \" \") }" . \
  " NR > 1 { k = ".key."; v[$1 SUBSEP k] = $col; pts[k] = 1 }" . \
  " END { for (i = 2; i <= n; i++) { for (j = 1; j < i; j++) { if (g[j] in root) continue; m = 0; ok = 1; np = 0;" . \
  "  for (k in pts) { ia = ((g[i] SUBSEP k) in v); ib = ((g[j] SUBSEP k) in v); if (ia != ib) { ok = 0; break } if (!ia) continue;" . \
  "   a = v[g[i] SUBSEP k]; b = v[g[j] SUBSEP k]; if ((a == \"nan\") != (b == \"nan\")) { ok = 0; break } if (a == \"nan\") continue;" . \
  "   np++; a = a + 0; b = b + 0; d = a - b; if (d < 0) d = -d; if (a < 0) a = -a; if (b < 0) b = -b; s = (a > b ? a : b);" . \
  "   if (s > 0 && d / s > m) m = d / s }" . \
  "  if (ok && np > 0 && m <= tol) { root[g[i]] = 1; printf \"%s=%s=%s \", g[i], g[j], (m <= 1e-6 ? \"=\" : \"~\"); break } } } }' '".f."'")
CO = ""
co_entry(r) = sum [k = 1:words(CO)] (strstrt(word(CO, k), r."=") == 1 ? k : 0)
co_with(r) = co_entry(r) > 0 ? word(CO, co_entry(r))[strlen(r) + 2:strlen(word(CO, co_entry(r))) - 2] : ""
co_sym(r) = co_entry(r) > 0 ? word(CO, co_entry(r))[strlen(word(CO, co_entry(r))):] : ""
co_label(r) = co_entry(r) > 0 ? nm(r)." ".(co_sym(r) eq "=" ? "=" : lab("≈", '$\approx$'))." ".nm(co_with(r)) : nm(r)
# The same for runs in files of their own, PRE.RUN.POST, compared in the
# column named COL row by row: two runs coincide when they have the same
# rows and |a - b| <= TOL max |v| over both runs at each.  Returns the
# "RUN=EARLIER=SYM ..." of coinc().
coinc_files(pre, post, grp, col, tol) = system("set -- ".grp."; out=; roots=; i=0; for a; do i=$((i+1)); j=0; " . \
  "for b; do j=$((j+1)); [ $j -ge $i ] && break; case \" $roots \" in *\" $b \"*) continue;; esac; " . \
  "s=$(awk -F, -v col='".col."' -v tol=".sprintf("%g", tol)." 'FNR == 1 { for (k = 1; k <= NF; k++) if ($k == col) c = k; next }" . \
  " NR == FNR { v[FNR] = $c + 0; n = FNR; m = (v[FNR] < 0 ? -v[FNR] : v[FNR]) > m ? (v[FNR] < 0 ? -v[FNR] : v[FNR]) : m; next }" . \
  " { w = $c + 0; if (!(FNR in v)) { bad = 1; exit } d = w - v[FNR]; if (d < 0) d = -d; if (d > dm) dm = d;" . \
  "   a = (w < 0 ? -w : w); if (a > m) m = a; last = FNR }" . \
  " END { if (bad || last != n) exit; if (dm <= tol * m) print (dm <= 1e-6 * m ? \"=\" : \"~\") }' " . \
  "'".pre."'\"$b\"'".post."' '".pre."'\"$a\"'".post."'); " . \
  "if [ -n \"$s\" ]; then out=\"$out $a=$b=$s\"; roots=\"$roots $a\"; break; fi; done; done; printf '%s' \"$out\"")
# The smallest and largest positive value of the column named COL over
# the rows of the files FILES (a space-separated list): "LO HI"; and the
# step of log-axis tics that labels at most about six decades of LO..HI.
pos_range(files, col) = system("awk -F, -v col='".col."' 'FNR == 1 { c = 0; for (k = 1; k <= NF; k++) if ($k == col) c = k; next }" . \
  " c && $c + 0 > 0 { v = $c + 0; if (lo == \"\" || v < lo) lo = v; if (v > hi) hi = v } END { printf \"%.17g %.17g\", lo, hi }' ".files)
log_step(lo, hi) = 10 ** (log10(hi / lo) > 28 ? 8 : log10(hi / lo) > 14 ? 4 : log10(hi / lo) > 7 ? 2 : 1)
