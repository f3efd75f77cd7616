// The firmware into the block RAMs at simulation start: gate_ram.cpp.
#pragma once

#include <string>

// The placeholder the netlist was synthesised with and the firmware image (one 32-bit hex word a line each: the
// +ram-placeholder and +ram-firmware plusargs), before the first eval reads them.
void gate_ram_setup(const std::string &placeholder, const std::string &firmware);

// After the first eval (the block RAM models' initial blocks): true when every bit slice of the placeholder was
// found in exactly one block RAM and replaced by the firmware's (a line says so); false, with the reasons on stderr,
// otherwise. True and silent for a simulator whose models were built without GATE_RAM_PATCH.
bool gate_ram_report();
