/*
 * base/errserial.h: the base room's one private function, for the rooms
 * above it (core/internal.h includes this header).
 *
 * cdyn_error_serial counts the messages cdyn_error has recorded in this
 * thread.  A caller compares it before and after a call to know whether
 * the call said why it returned a non-zero status: the stepper gives a
 * scheme's silent status its description (stepper/stepper.c), so that no
 * non-zero status reaches the user with an empty or an older message.
 */
#ifndef CDYN_ERRSERIAL_H
#define CDYN_ERRSERIAL_H

unsigned long cdyn_error_serial(void);

#endif
