// Types shared by the offload receive side (parser, trigger table) and the order engine.
package triggerfish.offload

import spinal.core._

/** One fire of the trigger table, in the eth_rx domain: "send the order of `template` now".
  * Several may come on consecutive cycles. */
case class OffloadFire() extends Bundle {
  val trigger = UInt(6 bits)    // the trigger that fired (for the fire log)
  val template = UInt(4 bits)   // the order template to send
  val ackSeq = UInt(32 bits)    // the TCP ACK number to send (the peer's next sequence number after the market data)
  val price = SInt(48 bits)     // the trade price that crossed (informational)
  val stamp = UInt(32 bits)     // eth_rx cycle stamp of the fire
}
