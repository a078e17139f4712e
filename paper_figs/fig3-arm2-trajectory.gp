# 001 fig. 3: y of the second node of the falling 2-link arm at h = 0.05,
# against the reduced-coordinate reference (joint angles, GSL rk8pd 1e-13).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
load ARG1."/common.gp"
E = D."/arm2-trajectory/"
set title lab("2-link arm, h = 0.05: y of node 2 (001 fig. 3)", \
  '2-link arm, $h = 0.05$: $y$ of node 2 (001 fig.~3)')
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("y_2 (m)", '$y_2$ (m)')
set yrange [-2.2:1.0]
set key top right horizontal
plot E."reference.csv" using "t":"y2" with lines ls 5 title "reference", \
     E."baumgarte_h0.05.csv" using "t":"y2" with lines ls 1 title "Baumgarte", \
     E."poststab_h0.05.csv" using "t":"y2" with lines ls 2 title "post-stabilisation", \
     E."implicit_h0.05.csv" using "t":"y2" with lines ls 3 title "implicit"
