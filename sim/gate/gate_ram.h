// The firmware into the block RAMs at simulation start: gate_ram.cpp.
#pragma once

// After the first eval (the block RAM models' initial blocks): true when every bit slice of the placeholder was
// found in exactly one block RAM and replaced by the firmware's (a line says so); false, with the reasons on stderr,
// otherwise. True and silent for a simulator whose models were built without GATE_RAM_PATCH.
bool gate_ram_report();
