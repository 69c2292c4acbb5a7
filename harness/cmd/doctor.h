/* doctor.h - what this machine can measure. */
#ifndef MTB_DOCTOR_H
#define MTB_DOCTOR_H
int mtb_cmd_doctor(int argc, char **argv);
#endif
