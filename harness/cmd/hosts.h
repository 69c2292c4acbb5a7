/* hosts.h - `mtebench hosts`: check hosts (connect, identity, clock offset,
 * agent put), or run the far mtebench there (--exec). */
#ifndef MTB_HOSTS_H
#define MTB_HOSTS_H
int mtb_cmd_hosts(int argc, char **argv);
#endif
