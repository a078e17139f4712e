# common.gp: terminal and style shared by every figure script.
# Every script is run as
#   gnuplot -c SCRIPT.gp FIGSRC DATADIR TERMINAL OUTPUT
# with FIGSRC this directory, DATADIR the directory holding the
# experiments' output, TERMINAL one of pdf, png, cairolatex, and OUTPUT
# the file to write (the Makefile writes to a temporary name and renames).
# `load` does not pass ARG1..ARG4 on, so each script first copies them
# into D, TERM_NAME and OUT_NAME.
# A script may set FIG_W and FIG_H (inches) before loading this file.
if (!exists("FIG_W")) FIG_W = 5.0
if (!exists("FIG_H")) FIG_H = 3.4
if (TERM_NAME eq "pdf") {
  set terminal pdfcairo size FIG_W*1in, FIG_H*1in font "Sans,9" enhanced
} else {
  if (TERM_NAME eq "png") {
    set terminal pngcairo size int(200*FIG_W), int(200*FIG_H) font "Sans,11" enhanced
  } else {
    if (TERM_NAME eq "cairolatex") {
      set terminal cairolatex pdf size FIG_W*1in, FIG_H*1in
    } else {
      print "unknown terminal ".TERM_NAME
      exit status 1
    }
  }
}
set output OUT_NAME
# Labels: cairolatex hands every string to LaTeX, where gnuplot's enhanced
# markup ("e_n", "{/Symbol a}") is an error or prints literally.  A script
# writes each label that holds markup as lab(ENHANCED, LATEX): the first
# for pdf and png, the second (LaTeX, math in $...$) for cairolatex.
# LaTeX strings are easiest in single quotes, where a backslash is
# literal: lab("{/Symbol a}", '$\alpha$').  Outside math, LaTeX wants
# _ % & # written \_ \% \& \#.  `make check-latex-figures` compiles every
# figure with pdflatex.
TEX = (TERM_NAME eq "cairolatex")
lab(e, t) = TEX ? t : e
# cairolatex writes no font sizes into the .tex: LaTeX sets every text at
# the size of the document, while gnuplot spaces the rows of a key for the
# size it was given, so a key in font ",7" comes out with 10 pt rows on top
# of each other.  A script that wants a small key writes `font KEY_SMALL`
# and titles each entry small(TEXT): in pdf and png that is font ",7" and
# TEXT as it is; in LaTeX, rows spaced for 9 pt (gnuplot's row pitch is
# about 0.93 of the size: 8.4 bp) holding \scriptsize text (7 pt on an 8 pt
# baseline).
KEY_SMALL = TEX ? ",9" : ",7"
small(s) = TEX ? '\scriptsize '.s : s
set datafile separator ","
set datafile missing "nan"
set grid lc rgb "#dddddd"
set key box opaque
set style line 1 lc rgb "#d62728" lw 1.5
set style line 2 lc rgb "#1f77b4" lw 1.5
set style line 3 lc rgb "#2ca02c" lw 1.5
set style line 4 lc rgb "#7f7f7f" lw 1.2 dt 2
set style line 5 lc rgb "#000000" lw 2.0
# Every scheme in a CSV's first column, in order of first appearance
# (for plotting one line per scheme): SCHEMES = schemes_of(file).
schemes_of(f) = system(sprintf("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%%s \", $1 }' '%s'", f))
