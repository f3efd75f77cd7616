/* The machine protocol's dispatch on the target (docs/PROTOCOL.md, lib/mproto.h): the console hands it every
 * line that starts with '@'; it answers hello and exit itself and passes the rest to the modules that own the
 * data (stops_machine, fixclient_machine). Events are written by those modules where they happen. */
#ifndef TF_APP_MACHINE_H
#define TF_APP_MACHINE_H

#include "lib/console.h"

/* Hooks the protocol into the console and sends the boot event (fw: the firmware's version). */
void machine_init(struct console *con, const char *fw);

#endif
