# The 5-link arm of 000 fig. 3 with the mass on the free end only (the
# other nodes 1 kg): unlike a uniform mass, this changes the motion.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 7.0; FIG_H = 5.4
load ARG1."/common.gp"
VARIANT = "heavy-end"
VTITLE = "5-link arm, free end of the given mass, other nodes 1 kg"
load ARG1."/arm5-panels.gp"
