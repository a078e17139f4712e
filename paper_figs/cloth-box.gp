# cloth-box.gp: the view of the cloth snapshot figures.  From BOX, the
# projected extent "X0 X1 Y0 Y1" (cloth-render.awk what=bbox), the panels'
# ranges XB0 .. XB1, YB0 .. YB1: the extent widened on every side by PAD
# (3 %) of its larger side, and VIEWBOX, the same as "X0 X1 Y0 Y1"
# (cloth-render.awk what=off's box).  Loaded by cloth-panels.gp, and by
# cloth-contact-snapshots.gp when it places the notes of its panels.
PAD = 0.03
XB0 = real(word(BOX, 1)); XB1 = real(word(BOX, 2)); YB0 = real(word(BOX, 3)); YB1 = real(word(BOX, 4))
XPAD = PAD * (XB1 - XB0 > YB1 - YB0 ? XB1 - XB0 : YB1 - YB0)
XB0 = XB0 - XPAD; XB1 = XB1 + XPAD; YB0 = YB0 - XPAD; YB1 = YB1 + XPAD
VIEWBOX = sprintf("%.6g %.6g %.6g %.6g", XB0, XB1, YB0, YB1)
