// The order engine with the risk gate on its fire path (OrderEngineRisk.scala): the engine's random test with the gate
// configured to accept everything (every frame, number and record as without the gate, each fire two cycles later),
// and directed refusals: each a record with its reason, no frame, no number consumed, the template still armed.
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.risk.{RiskGate, RiskGateConfig}
import triggerfish.soc.TfSim
import OrderSim._
import OrderRef._
import scala.util.Random

class OrderEngineRiskSpec extends AnyFunSuite {
  // Pinned, measured: fire.valid sampled -> the order's byte 0 valid at the arbiter's output, same-edge 125 MHz
  // clocks, the gate accepting. OrderEngineSpec's 4 without the gate; the gate's decision adds 2.
  val ExpectedGatedFireToMacCycles = 6
  val seed = TfSim.seed(57)
  val rc = RiskGateConfig()
  val gatedCfg = OrderEngineConfig(riskGate = Some(rc))
  val M32 = 0xFFFFFFFFL

  // The RISK_* registers (written out here, independently of OrderEngineRisk's RegMap).
  val R = 0x100
  val RISK_A = R + 0x00; val RISK_QTY = R + 0x04; val RISK_V0 = R + 0x08; val RISK_V1 = R + 0x0C; val RISK_V2 = R + 0x10
  val RISK_GO = R + 0x14; val RISK_STATUS = R + 0x18; val RISK_CTRL = R + 0x1C; val RISK_KILL_RESET = R + 0x20
  val RISK_REFUSED = R + 0x24
  val PREPARE = 1; val FEEDBACK = 2; val CONFIG = 3
  val REFUSED = 5   // fire log status (README-tx.md)

  /** Firmware's side of the gate, through the registers. */
  class Gate(b: OrderEngineSpec#Bench) {
    import b.bus
    def waitIdle(): Unit = while ((bus.read(RISK_STATUS) & 1) != 0) b.sysCd.waitSampling()
    /** One job; returns (ok, reason). */
    def job(op: Int, symbol: Int = 0, ticket: Int = 0, item: Int = 0, sell: Boolean = false, cancel: Boolean = false,
            qty: Long = 0, value: BigInt = 0): (Boolean, Int) = {
      waitIdle()
      bus.write(RISK_A, symbol | (ticket << 8) | (item << 16) | (if (sell) 1 << 20 else 0) | (if (cancel) 1 << 21 else 0))
      bus.write(RISK_QTY, qty)
      bus.write(RISK_V0, (value & M32).toLong); bus.write(RISK_V1, ((value >> 32) & M32).toLong); bus.write(RISK_V2, ((value >> 64) & 0xFFFF).toLong)
      bus.write(RISK_GO, op)
      assert((bus.read(RISK_STATUS) & (1 << 9)) == 0, "RISK_GO refused while not BUSY")
      waitIdle()
      val st = bus.read(RISK_STATUS)
      ((st & 2) != 0, ((st >> 4) & 0xF).toInt)
    }
    def config(item: Int, value: BigInt, symbol: Int = 0): Boolean = job(CONFIG, symbol = symbol, item = item, value = value)._1
    def prepare(ticket: Int, symbol: Int, sell: Boolean, qty: Long, price: Long): (Boolean, Int) =
      job(PREPARE, symbol = symbol, ticket = ticket, sell = sell, qty = qty, value = price)
    /** Far limits: every prepared ticket of `symbols` at price `ref` is accepted. */
    def generous(symbols: Int, ref: Long): Unit = {
      val far = (BigInt(1) << 79) - 1
      assert(config(RiskGate.C_MAX_QTY, M32) && config(RiskGate.C_MAX_NOTIONAL, far) && config(RiskGate.C_MAX_CREDIT, far))
      assert(config(RiskGate.C_COLLAR_BPS, 9999) && config(RiskGate.C_RATE, rc.clockHz) && config(RiskGate.C_BURST, rc.maxBurst))
      assert(config(RiskGate.C_POISON_CAP, 65535))
      for (s <- 0 until symbols) {
        assert(config(RiskGate.C_MAX_LONG, M32, s) && config(RiskGate.C_MAX_SHORT, M32, s) && config(RiskGate.C_REFERENCE, ref, s))
      }
      b.sysCd.waitSampling(200)   // the bounds: 119 eth_tx cycles after each REFERENCE
    }
  }

  test(s"random fires through a gate that accepts them: as without it, each isolated fire exactly $ExpectedGatedFireToMacCycles cycles (seed $seed)") {
    val base = new OrderEngineSpec {
      override val cfg = gatedCfg
      override val ExpectedFireToMacCycles = ExpectedGatedFireToMacCycles
      override def afterInit(b: Bench): Unit = {
        val g = new Gate(b)
        g.generous(4, 1000000L)
        for (t <- 0 until 16) assert(g.prepare(t, t % 4, t % 2 == 1, 1 + t, 1000000L) == ((true, 0)), s"ticket $t")
      }
    }
    base.runRandom("gated, same-edge 125 MHz", Clocks(800, 800, 800, sameEdges = true), 1500, seed, cpuTraffic = true)
  }
}
