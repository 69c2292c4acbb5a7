/* doctor.h - what this machine can measure; and `list`. */
#ifndef MTB_DOCTOR_H
#define MTB_DOCTOR_H
int mtb_cmd_doctor(int argc, char **argv);
int mtb_cmd_list(int argc, char **argv);
int mtb_cmd_proof(int argc, char **argv);
int mtb_cmd_quiet(int argc, char **argv);
#endif
