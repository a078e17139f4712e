# run-view3d.gp: the 3-D view that run-states.gp and run-animate.gp share.
# The data are written by `cdyn plot` / `cdyn animate` into TMPD, in
# gnuplot's axes (the scene's x, z, y: the scene's y is drawn upwards):
# a cloth as triangles (polygons, blocks of three points), a chain as its
# links (segments), else points; the balls as spheres of quadrilaterals.
# Loaded after common.gp.  view3d(FILE, BALLS, IDX, MODE, COLOUR) is the
# splot command of one frame (IDX: the data set in the file, 0 if one).
set datafile separator whitespace
set view 62, 35, 1, 1
set view equal xyz
set pm3d depthorder border lc rgb "#303030" lw 0.3
# Shading with depth: each polygon lit by its normal (a primary light and a
# little specular reflection), in the PDF and PNG figures and the GIF alike.
set pm3d lighting primary 0.55 specular 0.15
set style fill solid 0.85
set xyplane relative 0
set border 4095 lw 0.5 lc rgb "#9a9a9a"
set tics scale 0.5
# The same ranges in every panel (XR0 .. ZR1 from TMPD), about two tick
# steps along each axis, the tick labels small.
V3_RANGES = "set xrange [XR0:XR1]; set yrange [YR0:YR1]; set zrange [ZR0:ZR1]; " . \
  "set xtics nice(XR1 - XR0, 2); set ytics nice(YR1 - YR0, 2); set ztics nice(ZR1 - ZR0, 2); " . \
  "set format x '%g'; set format y '%g'; set format z '%g'"
eval V3_RANGES
set xtics font KEY_SMALL offset 0, -0.3
set ytics font KEY_SMALL
set ztics font KEY_SMALL
set xlabel "x" offset 0, -0.5
set ylabel "z" offset 0, 0
set zlabel "y" rotate parallel offset 1, 0
unset key
v3style(mode, colour) = mode == 1 ? sprintf("polygons fc rgb '%s'", colour) : \
  sprintf("%s lc rgb '%s'", mode == 2 ? "linespoints lw 1.5 pt 7 ps 0.5" : "points pt 7 ps 0.4", colour)
view3d(f, b, idx, mode, colour) = sprintf("splot '%s' index %d with %s notitle, " . \
  "'%s' index %d with polygons fc rgb '#9a9a9a' notitle", f, idx, v3style(mode, colour), b, idx)
