# cdyn-bench's figure: time per step against the rows m of A, log-log, for
# every variant (make bench).  The chains (m = 20 to 5000) are lines; the
# grids (m = 1746 and 19806) are open symbols of the same colour and
# type.  The dashed black line is the floor: CHOLMOD's bare factorisation
# and solve of the same A.
# Usage: gnuplot -c bench.gp results.csv out.pdf
F = ARG1; OUT = ARG2
set terminal pdfcairo size 7.5in,4.8in font "Helvetica,10"
set output OUT
set datafile separator ","
set logscale xy
set format x "10^{%L}"; set format y "10^{%L}"
set xlabel "rows of A, m"
set ylabel "time per step (ms)"
set key outside right top spacing 1.1
set grid
V = system("awk -F, 'NR > 1 && $4 !~ /^floor/ && $7 != \"\" && !seen[$4]++ { printf \"%s \", $4 }' '".F."'")
rows(v, kind) = sprintf("< awk -F, -v v='%s' -v k='%s' 'NR > 1 && $4 == v && index($1, k) == 1 && $7 != \"\" && $7 != \"nan\"' '%s'", v, kind, F)
plot for [i = 1:words(V)] rows(word(V, i), "chain") using 2:7 with linespoints lc i pt (i % 12) + 1 ps 0.6 \
       title word(V, i), \
     for [i = 1:words(V)] rows(word(V, i), "grid") using 2:7 with points lc i pt (i % 12) + 1 ps 1.3 notitle, \
     rows("floor-cholmod", "chain") using 2:7 with lines lc black dt 2 lw 1.5 title "floor: CHOLMOD factor + solve", \
     rows("floor-cholmod", "grid") using 2:7 with points lc black pt 2 ps 1.3 notitle
