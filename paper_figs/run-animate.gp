# run-animate.gp: one run's recorded motion as an animation in the 3-D
# view of run-view3d.gp, the time in the title: an animated GIF (gnuplot's
# gif terminal, TERM_NAME 'gif'), or PNG frames (TERM_NAME 'pngframes',
# OUT_NAME a printf pattern such as frame-%05d.png) that `cdyn animate
# --format mp4` joins with ffmpeg.  The data are what `cdyn animate`
# writes into TMPD: anim.dat (one data set a frame), anim-balls.dat and
# anim.gp (NF frames at times AT[1..NF], the drawing mode AMODE, the axes'
# ranges over every frame XR0..ZR1, FPS, the run ARUN).
#
#   gnuplot -e "FIGSRC='...'; RUNDIR='...'; RUNS='RUN'; STEM='...'; D='...'; TMPD='...'; \
#               TERM_NAME='gif'; OUT_NAME='...'" run-animate.gp
load FIGSRC."/rundir.gp"
load TMPD."/anim.gp"
# common.gp for the palette and style, on a scratch terminal; then the
# animation's own.
A_TERM = TERM_NAME; A_OUT = OUT_NAME
TERM_NAME = "png"; OUT_NAME = TMPD."/scratch.png"
FIG_W = 4.0; FIG_H = 3.2
load FIGSRC."/common.gp"
PAL_X = pal_use(RUNS)
load FIGSRC."/run-view3d.gp"
if (A_TERM eq "gif") {
  # (not `optimize`: its palette turns the dark side of lit polygons black)
  set terminal gif animate delay int(100.0 / FPS + 0.5) loop 0 size 800, 640 font "DejaVuSans,11"
  set output A_OUT
} else {
  set terminal pngcairo size 800, 640 font "Sans,11"
}
# common.gp's sizes are those of a printed figure: the animation's own.
set xtics font ",10"; set ytics font ",10"; set ztics font ",10"
set xlabel font ",11"; set ylabel font ",11"; set zlabel font ",11"
set title font ",12"
do for [k = 1:NF] {
  if (A_TERM ne "gif") { set output sprintf(A_OUT, k) }
  set title nm(STEM)." ".nm(ARUN).sprintf(":  t = %.3f s", AT[k])
  eval view3d(TMPD."/anim.dat", TMPD."/anim-balls.dat", k - 1, AMODE, pal_colour(ARUN))
}
unset output
