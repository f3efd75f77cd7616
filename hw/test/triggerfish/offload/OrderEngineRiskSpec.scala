// The order engine with the risk gate on its fire path (OrderEngineRisk.scala): the engine's random test with the gate
// configured to accept everything (every frame, number and record as without the gate, each isolated fire one cycle
// later: its ticket pre-checked),
// and directed refusals: each a record with its reason, no frame, no number consumed, the template still armed; the
// market reference (a book slot's trades as a symbol's collar centre).
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.risk.{RiskGate, RiskGateConfig}
import triggerfish.soc.TfSim
import OrderSim._
import OrderRef._
import scala.util.Random
import scala.language.reflectiveCalls

class OrderEngineRiskSpec extends AnyFunSuite {
  // Pinned, measured: fire.valid sampled -> the order's byte 0 valid at the arbiter's output, same-edge 125 MHz
  // clocks, the gate accepting. OrderEngineSpec's 4 without the gate; the gate's decision adds 1 for a fire whose
  // ticket the gate has pre-checked since its last change (every isolated fire: no booking or job just before it).
  val ExpectedGatedFireToMacCycles = 5
  val seed = TfSim.seed(57)
  val rc = RiskGateConfig()
  val gatedCfg = OrderEngineConfig(riskGate = Some(rc))
  val M32 = 0xFFFFFFFFL

  // The RISK_* registers (written out here, independently of OrderEngineRisk's RegMap).
  val R = 0x100
  val RISK_A = R + 0x00; val RISK_QTY = R + 0x04; val RISK_V0 = R + 0x08; val RISK_V1 = R + 0x0C; val RISK_V2 = R + 0x10
  val RISK_GO = R + 0x14; val RISK_STATUS = R + 0x18; val RISK_CTRL = R + 0x1C; val RISK_KILL_RESET = R + 0x20
  val RISK_REFUSED = R + 0x24; val RISK_SEND_GATED = R + 0x28
  val PREPARE = 1; val FEEDBACK = 2; val CONFIG = 3; val MAP = 4
  val CTRL_KILL = 1; val CTRL_ON = 2
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
      // a state write for OrderEngineSpec's isolated fires: the gate pre-checks its tickets again after every job
      // (RiskGate "fast acceptance"), so a fire just after one is decided a cycle later
      b.stateWrites += simTime()
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

  /** OrderEngineSpec's random test (fires, sends, idle sessions, re-arms, CPU frames), every fire and send frame through
    * a gate configured to accept them all. */
  def gatedRandom(name: String, clocks: Clocks, s: Int): Unit = {
    val base = new OrderEngineSpec {
      override val cfg = gatedCfg
      override val ExpectedFireToMacCycles = ExpectedGatedFireToMacCycles
      override val GateCycles = ExpectedGatedFireToMacCycles - 4
      override def makeBench(dut: OrderEngineTestTop, clocks: Clocks, rnd: Random): Bench = {
        dut.killPin.foreach(_ #= false); dut.bookRef.foreach(_.valid #= false)
        super.makeBench(dut, clocks, rnd)
      }
      override def afterInit(b: Bench): Unit = {
        val g = new Gate(b)
        g.generous(4, 1000000L)
        for (t <- 0 until 32) assert(g.prepare(t, t % 4, t % 2 == 1, 1 + t, 1000000L) == ((true, 0)), s"ticket $t")
        b.bus.write(RISK_SEND_GATED, 0xFFFF)   // every send frame a new order: through the gate too
        b.bus.write(RISK_CTRL, CTRL_ON)
      }
    }
    base.runRandom(name, clocks, 1500, s, cpuTraffic = true)
  }
  test(s"random fires and sends through a gate that accepts them: as without it, each isolated fire exactly $ExpectedGatedFireToMacCycles cycles (seed $seed)") {
    gatedRandom("gated, same-edge 125 MHz", Clocks(800, 800, 800, sameEdges = true), seed)
  }
  test(s"the same with unrelated clocks: rx 8 ns, tx 8.1 ns, sys 20 ns (seed ${seed + 1})") {
    gatedRandom("gated, unrelated clocks", Clocks(2000, 800, 810), seed + 1)
  }

  // Pinned: the kill register's rise (sys), or the kill pin's -> the gate's kill input (eth_tx), same-edge clocks: two flops.
  val ExpectedKillCycles = 2

  test(s"refusals: each reason a REFUSED record, no frame, no number taken, the template still armed; feedback frees; kill (seed $seed)") {
    compile(gatedCfg).doSim("risk_refusals", seed = seed) { dut =>
      SimTimeout(2000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val base = new OrderEngineSpec { override val cfg = gatedCfg }
      dut.killPin.foreach(_ #= false); dut.bookRef.foreach(_.valid #= false)
      val b = base.makeBench(dut, Clocks(800, 800, 800, sameEdges = true), rnd)
      b.init(seq = 5000, msg = 20, ipId = 7, win = 8192, timeMs = 36000000L, div = 124999)
      val g = new Gate(b)
      val bus = b.bus
      var refusals = 0
      def record(): FireRecord = {
        var k = 0
        while (bus.read(LOG_COUNT) == 0) { b.sysCd.waitSampling(10); k += 1; assert(k < 2000, "no record") }
        b.readRecord()
      }
      def sent(t: Int, what: String): Unit = {
        b.fireGroup(Seq(t))
        val r = record()
        assert(r.status == OrderEngine.St.SENT, s"$what: status ${r.status} (reason ${r.ipId}), expected SENT")
        b.checkRecord(r)   // the frame, its numbers, the next numbers
        b.toRearm.clear(); b.newTemplate(t); b.arm(1L << t)   // (never too narrow for its MsgSeqNum, unlike Bench.rearm's)
      }
      def refused(t: Int, reason: Int, what: String): Unit = {
        b.fireGroup(Seq(t))
        val r = record()
        assert(r.status == REFUSED && r.ipId == reason && r.template == t,
          s"$what: status ${r.status} reason ${r.ipId} template ${r.template}, expected REFUSED ${RiskGate.reasonNames(reason)} for $t")
        assert(r.recNo == (b.recCount & 0x1F), s"$what: record number"); b.recCount += 1; b.fireRecCount += 1; b.lastStamp = r.rxStamp
        assert(r.seq == b.expSeq && r.msgSeq == b.expMsg, s"$what: the record shows the next numbers (${r.seq}, ${r.msgSeq}), not (${b.expSeq}, ${b.expMsg})")
        dut.txCd.waitSampling(400)
        assert(b.orderFrames.isEmpty, s"$what: a frame was sent")
        assert((bus.read(ARMED) >> t & 1) == 1, s"$what: template $t no longer armed")
        refusals += 1
        assert(bus.read(RISK_REFUSED) == refusals, s"$what: RISK_REFUSED")
      }

      // Off (after reset): orders do not go through the gate, nothing is refused, a fire costs nothing more.
      b.fireGroup(Seq(0))
      val r0 = record(); assert(r0.status == OrderEngine.St.SENT, s"gate off: $r0"); b.checkRecord(r0)
      assert(b.latencies.last._2 == 4L * 800, s"gate off: fire -> MAC ${b.latencies.last._2 / 800.0} cycles, not 4")
      b.toRearm.clear(); b.newTemplate(0); b.arm(1)
      bus.write(RISK_CTRL, CTRL_ON)
      // Fail-closed once on: nothing prepared, nothing configured.
      refused(0, RiskGate.NO_TICKET, "before any configuration")
      // Bad jobs change nothing and say so.
      assert(!g.config(RiskGate.C_MAX_QTY, 0), "MAX_QTY 0 refused")
      assert(!g.config(RiskGate.C_COLLAR_BPS, 10000), "COLLAR_BPS 10000 refused")
      assert(!g.prepare(0, 200, sell = false, 10, 1000000L)._1, "an unknown symbol's ticket refused")
      bus.write(RISK_GO, 0)
      assert((bus.read(RISK_STATUS) & (1 << 9)) != 0, "RISK_GO 0 refused")

      g.generous(4, 1000000L)
      assert(g.config(RiskGate.C_MAX_QTY, 1000) && g.config(RiskGate.C_COLLAR_BPS, 500))
      b.sysCd.waitSampling(1000)   // the four symbols' new bounds
      for (t <- 0 until 16) {
        val qty = if (t == 5) 2000L else 10L
        val price = if (t == 6) 1060000L else 1000000L   // 6 % above the reference: outside a 5 % collar
        val (ok, why) = g.prepare(t, t % 4, sell = false, qty, price)
        assert(ok && why == (if (t == 5) RiskGate.MAX_QTY else 0), s"ticket $t: ($ok, $why)")
      }
      sent(0, "a ticket within every limit")
      refused(5, RiskGate.MAX_QTY, "quantity 2000 over 1000")
      refused(6, RiskGate.COLLAR, "a price 6 % over the reference, collar 5 %")

      // Position: symbol 1 may be long 15; each of ticket 1's orders buys 10.
      assert(g.config(RiskGate.C_MAX_LONG, 15, 1))
      sent(1, "the first buy of 10 (room 15)")
      refused(1, RiskGate.LONG_LIMIT, "a second buy of 10 with 10 open (room 5)")
      assert(!g.job(FEEDBACK, symbol = 1, cancel = true, qty = 11, value = 1000000L)._1, "releasing 11 of 10 open refused")
      assert(g.job(FEEDBACK, symbol = 1, cancel = true, qty = 10, value = 1000000L)._1, "the cancel of the 10 open")
      sent(1, "a buy of 10 after the cancel")

      // Restricted symbol.
      assert(g.config(RiskGate.C_RESTRICT, 1, 2))
      refused(2, RiskGate.RESTRICTED, "symbol 2 restricted")
      assert(g.config(RiskGate.C_RESTRICT, 0, 2))
      sent(2, "symbol 2 no longer restricted")

      // Throttle: one token every 20,000 cycles, a bucket of one.
      assert(g.config(RiskGate.C_RATE, rc.clockHz / 20000) && g.config(RiskGate.C_BURST, 1))
      dut.txCd.waitSampling(20000)
      sent(3, "the bucket's token")
      refused(4, RiskGate.THROTTLE, "the next order within 20,000 cycles")
      assert(g.config(RiskGate.C_RATE, rc.clockHz) && g.config(RiskGate.C_BURST, rc.maxBurst))

      // Firmware's orders: send-ring slot 2 (ticket 18) gated, slot 3 not.
      bus.write(RISK_SEND_GATED, 1 << 2)
      def sendFrame(slot: Int): Template = {
        val tp = buildSend(rnd, minFixLen(0) + rnd.nextInt(257 - minFixLen(0)), 0, fin = false, 10, 1)
        b.writeSlot(slot, tp)
        assert(b.queueSend(slot, tp, rnd.nextLong() & M32))
        b.slotBusy(slot) = true
        tp
      }
      assert(g.prepare(18, 0, sell = true, 10, 1000000L) == ((true, 0)))
      sendFrame(2)
      val s1 = record(); assert(s1.send && s1.status == OrderEngine.St.SENT, s"gated send within the limits: $s1"); b.checkRecord(s1)
      assert(g.prepare(18, 0, sell = true, 2000, 1000000L) == ((true, RiskGate.MAX_QTY)))
      sendFrame(2)
      val s2 = record()
      assert(s2.send && s2.template == 18 && s2.status == REFUSED && s2.ipId == RiskGate.MAX_QTY, s"gated send over MAX_QTY: $s2")
      assert(s2.recNo == (b.recCount & 0x1F) && s2.seq == b.expSeq && s2.msgSeq == b.expMsg, s"refused send: record number and next numbers: $s2")
      b.recCount += 1; b.sendQ.dequeue(); b.slotBusy(2) = false; refusals += 1
      dut.txCd.waitSampling(400)
      assert(b.orderFrames.isEmpty && bus.read(RISK_REFUSED) == refusals, "a refused send: no frame, counted")
      sendFrame(3)   // no ticket, not gated: sent
      val s3 = record(); assert(s3.send && s3.status == OrderEngine.St.SENT, s"ungated send: $s3"); b.checkRecord(s3)

      // The market reference: book slot 2's trades become symbol 3's reference (MAP). A trade at 2,000,000 moves the
      // collar's band to 1,900,000 .. 2,100,000, so ticket 11 (symbol 3 at 1,000,000) is refused; one at 1,010,000
      // lets it through. An unmapped slot's trade changes nothing; bad MAP jobs are refused.
      val bookRef = dut.bookRef.get
      def trade(slot: Int, price: Long): Unit = {
        bookRef.slot #= slot; bookRef.price #= price; bookRef.valid #= true
        dut.rxCd.waitSamplingWhere(bookRef.ready.toBoolean)
        bookRef.valid #= false
        b.sysCd.waitSampling(300)   // (the crossing, then the bounds: 119 eth_tx cycles)
      }
      assert(g.prepare(11, 3, sell = false, 10, 1000000L) == ((true, 0)))
      assert(!g.job(MAP, ticket = 4, symbol = 3, item = 1)._1, "MAP of book slot 4 refused")
      assert(!g.job(MAP, ticket = 2, symbol = rc.symbols, item = 1)._1, s"MAP to symbol ${rc.symbols} refused")
      bus.write(RISK_GO, 5)
      assert((bus.read(RISK_STATUS) & (1 << 9)) != 0, "RISK_GO 5 refused")
      assert(g.job(MAP, ticket = 2, symbol = 3, item = 1)._1, "MAP of slot 2 to symbol 3")
      trade(1, 2000000L)
      sent(11, "a trade of an unmapped slot changes no reference")
      trade(2, 2000000L)
      refused(11, RiskGate.COLLAR, "the market at 2,000,000 (band 1,900,000 .. 2,100,000)")
      trade(2, 1010000L)
      sent(11, "the market back at 1,010,000")
      assert(g.job(MAP, ticket = 2, symbol = 3, item = 0)._1, "slot 2 unmapped")
      trade(2, 2000000L)
      sent(11, "a trade of slot 2 once unmapped")

      // Kill: the gate sees the register two eth_tx cycles after it rises; every template is disarmed; fires are then
      // not armed (no frame, counted); the latch stays until KILL_RESET.
      val r = dut.engine.risk.get
      var riseSys = -1L; var riseGate = -1L
      val watch = fork {
        var pS = false; var pG = false
        while (riseGate < 0) {
          dut.txCd.waitSampling()
          val s = r.sys.kill.toBoolean; val gk = r.tx.gate.io.kill.toBoolean
          if (s && !pS) riseSys = b.dutCycle
          if (gk && !pG) riseGate = b.dutCycle
          pS = s; pG = gk
        }
      }
      bus.write(RISK_CTRL, CTRL_ON | CTRL_KILL)
      watch.join()
      assert(riseGate - riseSys == ExpectedKillCycles, s"kill: register in cycle $riseSys, gate input in $riseGate")
      b.sysCd.waitSampling(20)
      assert(bus.read(ARMED) == 0, "every template disarmed by the kill")
      assert((bus.read(RISK_STATUS) & (1 << 8)) != 0, "KILLED")
      for (t <- 0 until 16) b.armedModel(t) = false
      val notArmed = bus.read(NOT_ARMED)
      b.fireGroup(Seq(7))
      b.sysCd.waitSampling(400)
      assert(bus.read(LOG_COUNT) == 0 && b.orderFrames.isEmpty && bus.read(NOT_ARMED) == notArmed + 1, "a fire while killed: not armed, no frame")
      b.arm(1L << 7)
      b.sysCd.waitSampling(20)
      assert(bus.read(ARMED) == 0, "ARM_SET has no effect while the switch is on")
      bus.write(RISK_CTRL, 0)   // (off: the latch still puts every order through the gate)
      b.sysCd.waitSampling(20)
      assert((bus.read(RISK_STATUS) & (1 << 8)) != 0, "the latch holds after KILL falls")
      b.arm(1L << 7)
      refused(7, RiskGate.KILLED, "the latch refuses an armed template's fire")
      bus.write(RISK_KILL_RESET, 1)
      b.sysCd.waitSampling(20)
      assert((bus.read(RISK_STATUS) & (1 << 8)) == 0, "KILL_RESET clears the latch")
      bus.write(RISK_CTRL, CTRL_ON)
      sent(7, "after the reset")

      // The kill pin: the gate sees it as it sees KILL, two eth_tx cycles after it rises.
      val pin = dut.killPin.get
      dut.txCd.waitSampling()
      val pinAt = b.dutCycle + 1   // the first cycle the pin is high (set just after this edge)
      pin #= true
      var pinSeen = -1L
      while (pinSeen < 0) { dut.txCd.waitSampling(); if (r.tx.gate.io.kill.toBoolean) pinSeen = b.dutCycle }
      assert(pinSeen - pinAt == ExpectedKillCycles, s"kill pin: set after cycle $pinAt, gate input high in $pinSeen")
      b.sysCd.waitSampling(20)
      assert(bus.read(ARMED) == 0 && (bus.read(RISK_STATUS) & (1 << 10 | 1 << 8)) == (1 << 10 | 1 << 8), "the pin: templates disarmed, KILL_PIN and KILLED")
      for (t <- 0 until 16) b.armedModel(t) = false
      pin #= false
      bus.write(RISK_KILL_RESET, 1)
      b.sysCd.waitSampling(20)
      assert((bus.read(RISK_STATUS) & (1 << 10 | 1 << 8)) == 0, "pin low and KILL_RESET: not killed")
      b.arm(1L << 8)
      sent(8, "after the pin's release and the reset")
      b.finish(b.fires.length, "risk_refusals")
      println(s"[risk_refusals] $refusals refusals (every reason but CREDIT, MAX_NOTIONAL, SHORT_LIMIT and POISON), kill register and kill pin -> gate in $ExpectedKillCycles cycles")
    }
  }
}
