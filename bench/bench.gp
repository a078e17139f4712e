# cdyn-bench's figure: time per step against the rows m of A, log-log, for
# every variant (make bench).  The chains (m = 20 to 5000) are lines with
# points; the grids (m = 1746 and 19806) are larger open symbols of the
# same colour.  The dashed black line is the floor: CHOLMOD's bare
# factorisation and solve of the same A.
# Usage: gnuplot -c bench.gp results.csv out.pdf
F = ARG1; OUT = ARG2
set terminal pdfcairo size 7in,4.5in font "Helvetica,10"
set output OUT
set datafile separator ","
set logscale xy
set format x "10^{%L}"; set format y "10^{%L}"
set xlabel "rows of A, m"
set ylabel "time per step (ms)"
set key outside right top spacing 1.1
set grid
V = system("awk -F, 'NR > 1 && $4 !~ /^floor/ && $7 != \"\" && !seen[$4]++ { printf \"%s \", $4 }' '".F."'")
ischain(c) = strstrt(strcol(c), "chain") == 1
sel(v, chain) = (strcol(4) eq v && ischain(1) == chain && strcol(7) ne "") ? column(7) : NaN
plot for [i = 1:words(V)] F using 2:(sel(word(V, i), 1)) with linespoints lc i pt 7 ps 0.5 title word(V, i), \
     for [i = 1:words(V)] F using 2:(sel(word(V, i), 0)) with points lc i pt 6 ps 1.2 notitle, \
     F using 2:((strcol(4) eq "floor-cholmod") ? column(7) : NaN) with linespoints lc black dt 2 pt 1 title "floor: CHOLMOD"
