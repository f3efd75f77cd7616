// Types shared by the two halves of the stop-order offload (issue 5): the receive parser and trigger table
// (OffloadRx, eth_rx domain) and the order engine (eth_tx domain). The TX side keeps an identical copy until
// the branches are merged; keep the fields and their order exactly as they are, add new ones at the end.
package triggerfish.offload

import spinal.core._

object OffloadFire {
  /** A logged trade price: the 14 decimal digits (BCD, the last in bits 3:0) of its fixed-point value with the implied
    * decimals configured in OFFLOAD_RX.FIX_CFG; all ones: 10^14 or more, 0: negative. */
  val priceWidth = 56
}

/** One fire of the trigger table (eth_rx domain, a Flow: one beat per fired entry, several fires of one
  * segment on consecutive cycles in table-index order). */
case class OffloadFire() extends Bundle {
  val trigger = UInt(6 bits)     // trigger table index
  val template = UInt(4 bits)    // which prebuilt order to send
  val ackSeq = UInt(32 bits)     // the TCP sequence number expected next from the peer after the triggering segment
  val price = UInt(OffloadFire.priceWidth bits) // the trade price that crossed, BCD (valid when recordValid)
  val stamp = UInt(32 bits)      // eth_rx cycle counter when the SOH ending the triggering 270 field was on the MAC
                                 // stream (io.rx); on the RX pins it was (stamp - 6) with the default LiteEth build
  // -- additions after the agreed fields --
  val recordValid = Bool()       // price/stamp are valid (false only if the segment overflowed the 16-entry trade log)
}
