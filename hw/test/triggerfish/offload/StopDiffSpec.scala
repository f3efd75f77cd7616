// Differential test of the two trigger paths (issue 19): the firmware's market-data parsing and stop logic (its
// own C sources built for the host: fw/tests/stops_replay.c through the real FIX session, fw/app/stops.c), the
// hardware's reference model (OffloadRxModel) and the RTL (OffloadRx in SpinalSim) get the same seeded random
// market data and the same armed stops, and must make the same decisions, message for message: which stop fires,
// on which message, at which price. The firmware frames the messages (its session checks the header) and prints
// the bytes it was fed; the same bytes go to the model and the RTL, one message per TCP segment.
//
// The generator (StopDiffGen) covers every form FIX 4.4 allows a float to take: any number of integer and
// fraction digits, leading and trailing zeros, more fraction digits than the implied decimals, no fraction, a
// lone trailing point, a leading point, a sign; prices exactly at, a unit and a hair above and below each stop
// (buy and sell); symbols that are prefixes or extensions of armed ones; entry types other than trade and
// several entries per W (past the firmware's 6 kept entries, and past the 40 fields its parser keeps on the SoC,
// up to 45 entries a message). The reported price is the trade price's
// floor at the implied decimals (the hardware's 48-bit fire record holds 0 for a negative one and all ones for
// one of 10^14 or more; the firmware's is compared through the same mapping).
// Valid market data must never be answered by the firmware with anything but orders (no session Reject).
// The firmware is built with the SoC's limits (fw/Makefile NET_LIMITS: 40 fields kept per message); the messages
// stay within FIX_MAX_MSG_LEN (1024 bytes framed), past which the firmware answers a message with a Reject unread.
//
// Runs in `make test` (hw): TF_SEED (default 19) and TF_DIFF_CASES (default 40) cases; set TF_DIFF_SEED for a
// second, longer run with that seed.
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.sys.process._
import scala.util.Random

case class DiffStop(idx: Int, sell: Boolean, sym: String, stop: Long)
case class DiffCase(name: String, decimals: Int, stops: Seq[DiffStop], msgs: Seq[String])

/** Random cases: the armed stops and the W messages' bodies after MsgSeqNum ('|' for SOH). */
class StopDiffGen(rnd: Random) {
  val symbolPool = Seq("AAPL", "MSFT", "IBM", "A", "BRK.B", "GOOGL", "X", "ZVZZT", "ES-Z5", "T")
  def pick[T](xs: Seq[T]): T = xs(rnd.nextInt(xs.length))

  /** A stop value (fixed point, < 10^14) of any size the decimals allow. */
  def stopValue(d: Int): Long = {
    val maxInt = 14 - d
    rnd.nextInt(8) match {
      case 0 => 1L                                                          // the smallest
      case 1 => 1L + rnd.nextInt(math.max(1, math.min(BigInt(10).pow(d).toInt, 1000000)))   // below 1.0
      case 2 => BigInt(10).pow(14).toLong - 1 - rnd.nextInt(1000)          // the largest
      case _ =>
        val intDigits = 1 + rnd.nextInt(math.min(maxInt, 7).max(1))
        val ip = BigInt(intDigits * 4, rnd).mod(BigInt(10).pow(intDigits)).max(1)
        (ip * BigInt(10).pow(d) + BigInt(40, rnd).mod(BigInt(10).pow(d))).min(BigInt(10).pow(14) - 1).toLong
    }
  }

  /** A FIX float rendering of an exact value, in one of the forms FIX allows. */
  def render(x: BigDecimal): String = {
    val neg = x.signum < 0
    val plain = x.abs.bigDecimal.stripTrailingZeros.toPlainString
    val (ip0, fp0) = plain.indexOf('.') match { case -1 => (plain, ""); case i => (plain.take(i), plain.drop(i + 1)) }
    val fp = fp0 + (if (rnd.nextInt(3) == 0) "0" * (1 + rnd.nextInt(8)) else "")
    val ip1 = (if (rnd.nextInt(5) == 0) "0" * (1 + rnd.nextInt(12)) else "") + ip0
    val ip = if (ip1 == "0" && fp.nonEmpty && rnd.nextInt(3) == 0) "" else ip1   // ".5"
    val body = if (fp.isEmpty) (if (rnd.nextInt(4) == 0) ip + "." else ip) else ip + "." + fp
    (if (neg) "-" else "") + body
  }

  /** A price near a stop (exact value): at it, a unit or a hair either side, or far from it. */
  def priceNear(d: Int, stop: Long): String = {
    val unit = BigDecimal(1) / BigDecimal(10).pow(d)
    val s = BigDecimal(stop) * unit
    def hair = BigDecimal(1 + rnd.nextInt(9)) * unit / BigDecimal(10).pow(1 + rnd.nextInt(7)) +
      (if (rnd.nextBoolean()) BigDecimal(rnd.nextInt(1000)) * unit / BigDecimal(10).pow(12) else BigDecimal(0))
    rnd.nextInt(20) match {
      case 0 | 1 | 2 | 3 => render(s)
      case 4 | 5 => render(s + unit)
      case 6 | 7 => render((s - unit).max(0))
      case 8 | 9 | 10 => render(s + hair)
      case 11 | 12 | 13 => render((s - hair).max(0))
      case 14 => render(s * 2 + unit)
      case 15 => render(s / 3)
      case 16 => pick(Seq("-", "")) + "0" * rnd.nextInt(3) + "1" + "0" * (14 - d + rnd.nextInt(8)) + pick(Seq("", ".", ".5", ".000"))  // past every stop
      case 17 => "-" + render(s)                                            // negative
      case 18 => pick(Seq("0", "-0", "-0.000", "0.", ".0", "000"))          // zero
      case _ => render(BigDecimal(BigInt(60, rnd)) / BigDecimal(10).pow(rnd.nextInt(20)))   // anything
    }
  }

  def symbolLike(sym: String, armed: Seq[String]): String = rnd.nextInt(20) match {
    case 0 | 1 => if (sym.length > 1) sym.init else sym + "X"              // a prefix
    case 2 | 3 => sym + pick(Seq("X", "1", ".A", "L", "AAAAAAAA"))        // an extension (past 8 characters too)
    case 4 => sym.toLowerCase
    case 5 => pick(symbolPool)
    case _ => sym
  }

  def gen(name: String): DiffCase = {
    val d = rnd.nextInt(9)
    val syms = Seq.fill(1 + rnd.nextInt(3))(pick(symbolPool)).distinct
    val nStops = 2 + rnd.nextInt(7) // up to 8: every armed stop holds one of the SoC firmware's 8 order entries
    val anchors = syms.map(s => s -> stopValue(d)).toMap
    val stops = (0 until nStops).map { i =>
      val sym = pick(syms)
      val a = anchors(sym)
      val v = rnd.nextInt(4) match {
        case 0 => a
        case 1 => (a + rnd.nextInt(3) - 1).max(1).min(BigInt(10).pow(14).toLong - 1)
        case 2 => stopValue(d)
        case _ => (a + (rnd.nextGaussian() * 0.01 * a).toLong).max(1).min(BigInt(10).pow(14).toLong - 1)
      }
      DiffStop(i, rnd.nextBoolean(), sym, v)
    }
    // (within FIX_MAX_MSG_LEN, 1024 bytes a framed message; one in eight past the 16 entries the firmware keeps, one
    // in eight with 20 to 45 entries, far past the 40 fields its parser keeps)
    def msg(): String = {
      val sym = symbolLike(pick(syms), syms)
      val long = rnd.nextInt(8) == 0
      val nEntries = if (long) 20 + rnd.nextInt(26) else if (rnd.nextInt(7) == 0) 16 + rnd.nextInt(3) else 1 + rnd.nextInt(6)
      val entries = (0 until nEntries).map { _ =>
        val t = rnd.nextInt(10) match {
          case 0 | 1 | 2 | 3 | 4 => "2"
          case 5 | 6 => "0"
          case 7 | 8 => "1"
          case _ => pick(Seq("4", "5", "6", "7", "8", "9", "A", "B", "C"))
        }
        val target = pick(stops.filter(_.sym == sym).map(_.stop) ++ stops.map(_.stop))
        val px = if (rnd.nextInt(25) == 0) Nil else Seq("270" -> priceNear(d, target))
        val more = if (long) Nil else
          (if (rnd.nextInt(3) == 0) Seq("271" -> pick(Seq("100", "5", "0100", "2.5", "1000.000", "7."))) else Nil) ++
            (if (rnd.nextInt(6) == 0) Seq("290" -> (1 + rnd.nextInt(9)).toString) else Nil)
        val rest = rnd.shuffle(px ++ more)
        Seq("269" -> t) ++ rest
      }
      val group = Seq("268" -> nEntries.toString) ++ entries.flatten
      val body = rnd.nextInt(3) match {
        case 0 => Seq("55" -> sym, "262" -> "MD1") ++ group
        case 1 => Seq("262" -> "MD1") ++ group ++ Seq("55" -> sym)
        case _ => group ++ Seq("55" -> sym)
      }
      body.map { case (t, v) => s"$t=$v|" }.mkString
    }
    val msgs = (0 until 6 + rnd.nextInt(10)).map(_ => Iterator.continually(msg()).find(_.length <= 850).get)
    DiffCase(name, d, stops, msgs)
  }
}

class StopDiffSpec extends AnyFunSuite {
  val seed = TfSim.seed(19)
  val nCases = sys.env.get("TF_DIFF_CASES").map(_.toInt).getOrElse(40)
  lazy val compiled = OffloadRxSim.compile(OffloadRxConfig(entries = 64))
  val MaxLogged = (1L << 48) - 1

  /** The firmware's decisions: per (case, message) the framed message, the fires (stop, price), its answers. */
  case class FwOut(msgs: Map[(String, Int), String], fires: Map[(String, Int), Set[(Int, Long)]], answers: Map[(String, Int), Seq[String]])

  def runFirmware(cases: Seq[DiffCase]): FwOut = {
    val make = Seq("make", "-C", "fw", "-s", "stops-replay").!
    assert(make == 0, "building fw/tests/stops_replay failed")
    val input = cases.flatMap { c =>
      Seq(s"case ${c.name} ${c.decimals}") ++ c.stops.map(s => s"stop ${s.idx} ${if (s.sell) "sell" else "buy"} ${s.sym} ${s.stop}") ++
        c.msgs.map("W " + _)
    }.mkString("", "\n", "\n")
    val out = new StringBuilder
    val err = new StringBuilder
    val rc = (Process(Seq("build/fw/host/stops_replay")) #< new java.io.ByteArrayInputStream(input.getBytes("ISO-8859-1")))
      .!(ProcessLogger(l => out.append(l).append('\n'), l => err.append(l).append('\n')))
    assert(rc == 0, s"stops_replay exited $rc: $err")
    val msgs = mutable.Map[(String, Int), String]()
    val fires = mutable.Map[(String, Int), Set[(Int, Long)]]().withDefaultValue(Set())
    val answers = mutable.Map[(String, Int), Seq[String]]().withDefaultValue(Nil)
    for (l <- out.toString.split('\n') if l.startsWith("DIFF ")) l.split(" ", 5).toSeq match {
      case Seq(_, "msg", c, k, text) => msgs((c, k.toInt)) = text
      case Seq(_, "fire", c, k, rest) =>
        val Array(stop, px) = rest.split(" ")
        val p = BigInt(px)
        val logged = if (p < 0) 0L else if (p >= BigInt(10).pow(14)) MaxLogged else p.toLong
        fires((c, k.toInt)) = fires((c, k.toInt)) + ((stop.toInt, logged))
      case Seq(_, "answer", c, k, text) => answers((c, k.toInt)) = answers((c, k.toInt)) :+ text
      case other => fail(s"stops_replay printed $l")
    }
    FwOut(msgs.toMap, fires.toMap.withDefaultValue(Set()), answers.toMap.withDefaultValue(Nil))
  }

  /** The hardware's decisions (model and RTL) on the firmware's bytes; returns the disagreements. */
  def compare(s: Int, cases: Seq[DiffCase]): Seq[String] = {
    val fw = runFirmware(cases)
    val problems = ArrayBuffer[String]()
    var nMsgs = 0; var nFires = 0
    compiled.doSim(s"stopdiff_$s", seed = s) { dut =>
      SimTimeout(cases.map(_.msgs.length).sum * 200L * 1000 * 1000 + 100L * 1000 * 1000 * 1000)
      val rnd = new Random(s)
      val h = new OffloadRxHarness(dut, rnd)
      var seq = 1000L
      for (c <- cases) {
        h.drain()
        h.configure(decimals = c.decimals)
        h.disarmAll()
        h.loadSeq(seq)
        for (st <- c.stops) h.writeEntry(st.idx, ModelEntry(st.sym, st.stop, st.sell, oneShot = true, tmpl = st.idx % 16))
        val hw0 = h.hwFires.length
        val model0 = h.modelFires.length
        val frameOf = mutable.Map[Int, Int]()      // frame id -> message
        val ackOf = mutable.Map[Long, Int]()       // the sequence number after a message's segment -> message
        for (k <- c.msgs.indices) {
          val text = fw.msgs.getOrElse((c.name, k), fail(s"case ${c.name}: the firmware printed no message $k"))
          val bytes = text.map(ch => if (ch == '|') 1 else ch.toInt)
          val f = h.send(h.tcp(seq, bytes).bytes)
          seq = (seq + bytes.length) & 0xFFFFFFFFL
          frameOf(f.id) = k
          ackOf(seq) = k
        }
        h.drain()
        // (a fire without its trade-log record -- more than 14 prices logged in a segment, README "Trade log" -- has
        // no price: -1, and the firmware's price for that stop is not compared)
        val hwBy = h.hwFires.drop(hw0).groupBy(f => ackOf.getOrElse(f.ackSeq, -1))
          .map { case (k, fs) => k -> fs.map(f => (f.trigger, if (f.recordValid) f.price else -1L)).toSet }.withDefaultValue(Set())
        val modelBy = h.modelFires.drop(model0).groupBy(x => frameOf.getOrElse(x._1, -1))
          .map { case (k, fs) => k -> fs.map(x => (x._2.trigger, if (x._2.recordValid) x._2.price else -1L)).toSet }.withDefaultValue(Set())
        for (k <- c.msgs.indices) {
          nMsgs += 1
          val key = (c.name, k)
          val unlogged = modelBy(k).filter(_._2 < 0).map(_._1)
          val f = fw.fires(key).map { case (j, p) => (j, if (unlogged(j)) -1L else p) }
          val (m, r) = (modelBy(k), hwBy(k))
          nFires += f.size
          val text = fw.msgs(key)
          if (f != m || m != r)
            problems += s"case ${c.name} (decimals ${c.decimals}) message $k: firmware ${f.toSeq.sorted}, model ${m.toSeq.sorted}, " +
              s"RTL ${r.toSeq.sorted}\n    $text\n    stops: ${c.stops.map(st => s"${st.idx}:${if (st.sell) "sell" else "buy"} ${st.sym} ${st.stop}").mkString(", ")}"
          for (a <- fw.answers(key)) problems += s"case ${c.name} message $k: the firmware answered $a\n    $text"
        }
        if ((hwBy.keySet ++ modelBy.keySet).exists(_ < 0)) problems += s"case ${c.name}: a fire not matched to a message"
      }
      h.drain()
      // the model against the RTL, fire by fire: stamps and latency too; then the counters
      for (check <- Seq(() => h.checkFires(), () => h.checkCounters()))
        try check() catch { case e: AssertionError => problems += s"the model and the RTL: ${e.getMessage.take(3000)}" }
    }
    // fields of a framed message: the body's, and 8, 9, 35, 34, 49, 52, 56 and 10 around it
    val fields = cases.flatMap(_.msgs).map(_.count(_ == '|') + 8)
    println(s"StopDiffSpec seed $s: ${cases.length} cases, $nMsgs messages (${fields.count(_ > 40)} of more than the " +
      s"40 fields the SoC firmware keeps, up to ${fields.max}), $nFires fires, ${problems.length} disagreements")
    if (!fields.exists(_ > 40)) problems += "no message of more than 40 fields was generated"
    problems.toSeq
  }

  def cases(s: Int, n: Int): Seq[DiffCase] = {
    val g = new StopDiffGen(new Random(s))
    (0 until n).map(i => g.gen(s"c$i"))
  }

  test(s"the firmware, the model and the RTL fire the same stops on the same messages at the same prices (seed $seed)") {
    val p = compare(seed, cases(seed, nCases))
    assert(p.isEmpty, s"${p.length} disagreements:\n${p.take(30).mkString("\n")}")
  }

  sys.env.get("TF_DIFF_SEED").foreach { s =>
    test(s"the same, longer, with TF_DIFF_SEED=$s") {
      val p = compare(s.toInt, cases(s.toInt, nCases * 10))
      assert(p.isEmpty, s"${p.length} disagreements:\n${p.take(30).mkString("\n")}")
    }
  }
}
