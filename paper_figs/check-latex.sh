#!/bin/sh
# check-latex.sh DIR: compile every DIR/NAME.tex written by gnuplot's
# cairolatex terminal, each \input into a minimal LaTeX document, with
# pdflatex.  Stops at the first figure that does not compile and prints
# pdflatex's error.  Exits 0 with a SKIP message when pdflatex is absent,
# since the LaTeX figures are an extra that the build does not need.
#
# The minimal document loads only graphicx and color, the two packages the
# cairolatex output needs, so that a figure passing here needs nothing else
# from the paper that \inputs it.  \tracinglostchars=3 turns a character missing from the font (a
# stray Unicode sign, say) into an error instead of a silent gap.  The
# figure is shipped out as a page of its own size, so the PDF pdflatex
# makes is a cropped picture of what a paper would show; with KEEP_PDF set
# to a directory, these pictures are copied there as NAME.pdf.
set -u
PDFLATEX=${PDFLATEX:-pdflatex}
if ! command -v "$PDFLATEX" >/dev/null 2>&1; then
  echo "SKIP: $PDFLATEX not found; the LaTeX figures were not compiled."
  echo "      On Debian: apt-get install --no-install-recommends texlive-latex-base"
  exit 0
fi
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DIR (the directory holding the cairolatex figures)" >&2
  exit 2
fi
dir=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cdyn-latex.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
n=0
for f in "$dir"/*.tex; do
  [ -f "$f" ] || { echo "FAIL: no .tex figure in $dir (run make figures first)" >&2; exit 1; }
  name=$(basename "$f" .tex)
  cat > "$tmp/wrap.tex" <<TEX
\\documentclass{article}
\\usepackage{graphicx}
\\usepackage{color}
\\tracinglostchars=3
\\begin{document}
\\setbox0=\\hbox{\\input{$name}}%
\\pdfpagewidth=\\wd0 \\pdfpageheight=\\ht0 \\advance\\pdfpageheight by \\dp0
\\pdfhorigin=0pt \\pdfvorigin=0pt
\\shipout\\box0
\\end{document}
TEX
  # TEXINPUTS finds both NAME.tex and the NAME.pdf it includes by its
  # bare name; the trailing colon keeps the system's own directories.
  if ! (cd "$tmp" && TEXINPUTS="$dir:" "$PDFLATEX" -interaction=nonstopmode \
          -halt-on-error -no-shell-escape wrap.tex >/dev/null 2>&1); then
    echo "FAIL: $f does not compile with $PDFLATEX. Its error:" >&2
    sed -n '/^!/,/^l\.[0-9]/p' "$tmp/wrap.log" | head -n 20 >&2
    trap - EXIT
    echo "The document and pdflatex's whole log are kept in $tmp/." >&2
    exit 1
  fi
  if [ -n "${KEEP_PDF:-}" ]; then cp "$tmp/wrap.pdf" "$KEEP_PDF/$name.pdf"; fi
  echo "ok: $name"
  n=$((n + 1))
done
echo "$n LaTeX figures compile with $PDFLATEX."
