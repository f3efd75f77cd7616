// The hardware top of book (BookRx inside OffloadRx): random 35=W streams of slot symbols and near misses (prefixes,
// longer symbols, a ninth character), entries of every type with prices in every FIX form (signs, leading zeros,
// more fraction digits than the implied decimals, too many integer digits, not a price at all), messages the
// scanner must not commit (a bad CheckSum, two symbols, NoMDEntries wrong, not a W), sent as TCP segments with
// corrupt copies, segments from the future and overlapping retransmissions among them; symbols and decimals changed
// between connections. After every few segments each slot is read through CMD READ_STATE and the BOOK_ registers
// and compared with BookModel, which reads the whole messages of the clean stream on its own. The book's feed of the
// risk gate's market reference (BookRefFeed, OffloadRx.book.refOut), taken at random, must by then have delivered each
// slot's last trade at the implied decimals (where the model has a positive one).
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly triggerfish.offload.OffloadRxBookSpec
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.language.reflectiveCalls
import scala.util.Random

/** A kept price as firmware reads it: magnitude at the implied decimals (truncated), sign, digits cut. */
case class BookPrice(mag: BigInt, neg: Boolean, inexact: Boolean)

/** The reference: whole messages, each applied once the clean in-order stream holds all of it. */
class BookModel(slots: Int) {
  val syms = Array.fill(slots)("")
  var decimals = 2
  val px = Array.fill(slots, 3)(Option.empty[BookPrice])
  val updates = Array.fill(slots)(0L)

  def configure(newSyms: Seq[String], dec: Int): Unit = {
    for (k <- 0 until slots if dec != decimals || newSyms(k) != syms(k)) { px(k) = Array.fill(3)(None); updates(k) = 0 }
    for (k <- 0 until slots) syms(k) = newSyms(k)
    decimals = dec
  }

  /** FIX Price: an optional '-', digits with at most one '.', at least one digit. None when not one, or 10^14 or more
    * at the implied decimals. */
  def price(v: String): Option[BookPrice] = {
    val neg = v.startsWith("-")
    val u = if (neg) v.drop(1) else v
    if (u.isEmpty || !u.forall(c => c.isDigit || c == '.') || u.count(_ == '.') > 1 || !u.exists(_.isDigit)) return None
    val exact = BigDecimal(if (u.startsWith(".")) "0" + u else if (u.endsWith(".")) u + "0" else u) * BigDecimal(10).pow(decimals)
    val mag = exact.setScale(0, BigDecimal.RoundingMode.DOWN).toBigInt
    if (mag >= BigInt(10).pow(14)) None else Some(BookPrice(mag, neg, exact != BigDecimal(mag)))
  }

  /** A message the scanner commits: a well-formed 35=W (the rules the generator breaks) with a good CheckSum. */
  def apply(msg: String): Unit = {
    val fields = msg.split('\u0001').toSeq.map { f => val i = f.indexOf('='); (f.take(i), f.drop(i + 1)) }
    val body = fields.drop(2).dropRight(1)
    val cs = fields.last._2.toInt
    if (Fix.checksum(msg.take(msg.lastIndexOf("10="))) != cs) return
    if (body.head != ("35" -> "W")) return
    if (body.count(_._1 == "55") != 1) return
    if (body.find(_._1 == "268").map(_._2.toInt) != Some(body.count(_._1 == "269"))) return
    val sym = body.find(_._1 == "55").get._2
    val hits = (0 until slots).filter(k => syms(k).nonEmpty && syms(k) == sym)   // (two slots may hold one symbol)
    if (hits.isEmpty) return
    // entries: from each 269 to the next; the first of each type with a kept price
    val first = Array.fill(3)(Option.empty[BookPrice])
    var t = -1
    for ((tag, v) <- body) tag match {
      case "269" => t = if (v.length == 1 && v(0) >= '0' && v(0) <= '2') v(0) - '0' else -1
      case "270" if t >= 0 && first(t).isEmpty => first(t) = price(v)
      case _ =>
    }
    for (k <- hits) {
      updates(k) += 1
      for (i <- 0 until 3 if first(i).isDefined) px(k)(i) = first(i)
    }
  }
}

class OffloadRxBookSpec extends AnyFunSuite {
  val Slots = 4
  lazy val compiled = OffloadRxSim.compile(OffloadRxConfig(entries = 16, digest = true), bookSlots = Slots, bookRef = true)

  class BookPort(h: OffloadRxHarness) {
    import h.{bus, off}
    def setSymbols(syms: Seq[String]): Unit =
      for ((s, k) <- syms.zipWithIndex; half <- 0 until 2) {
        val w = (0 until 4).map(i => s.lift(4 * half + i).map(_.toLong).getOrElse(0L) << (8 * i)).sum
        bus.write(off(s"BOOK_SYM${k}_${if (half == 0) "LO" else "HI"}"), w)
      }
    /** (updates, bid, offer, trade) of slot k as of the last good segment; decimals: the implied decimals (a price's
      * SCALE is at most that). */
    def read(k: Int, decimals: Int): (Long, Seq[Option[BookPrice]]) = {
      h.cmd(OffloadRx.Op.READ_STATE, k)
      val flags = bus.read(off("BOOK_FLAGS"))
      val px = Seq("BID", "OFFER", "TRADE").zipWithIndex.map { case (n, t) =>
        if ((flags >> t & 1) == 0) None
        else {
          val scale = (flags >> (12 + 4 * t) & 15).toInt
          assert(scale <= decimals, s"slot $k $n: SCALE $scale, more than the $decimals implied decimals")
          val mag = BigInt(bus.read(off(s"BOOK_${n}_HI")) & 0x7FFF) << 32 | BigInt(bus.read(off(s"BOOK_${n}_LO")) & 0xFFFFFFFFL)
          Some(BookPrice(mag * BigInt(10).pow(scale), (flags >> (4 + t) & 1) != 0, (flags >> (8 + t) & 1) != 0))
        }
      }
      (bus.read(off("BOOK_UPDATES")) & 0xFFFFFFFFL, px)
    }
  }

  /** The stream's messages: W of the slot symbols and near misses, and the kinds the scanner must not commit. */
  class Gen(rnd: Random) {
    def pick[T](xs: Seq[T]): T = xs(rnd.nextInt(xs.length))
    def digits(n: Int): String = Seq.fill(n)(('0' + rnd.nextInt(10)).toChar).mkString
    def priceText: String = rnd.nextInt(20) match {
      case 0 => pick(Seq("-", ".", "1.2.3", "12a", "+5", "1-2", "--1", "0x1F", " 1"))
      case 1 => "-" + digits(1 + rnd.nextInt(4)) + "." + digits(rnd.nextInt(6))
      case 2 => digits(10 + rnd.nextInt(8))                                     // many integer digits
      case 3 => "0" * rnd.nextInt(4) + digits(1 + rnd.nextInt(3)) + "." + digits(5 + rnd.nextInt(8))   // cut digits
      case 4 => "." + digits(1 + rnd.nextInt(4))
      case 5 => digits(1 + rnd.nextInt(3)) + "."
      case 6 => "-0" + (if (rnd.nextBoolean()) ".00" + digits(2) else "")
      case _ => (1 + rnd.nextInt(500)).toString + (if (rnd.nextBoolean()) "." + digits(rnd.nextInt(4)) else "")
    }
    def entry: Seq[(String, String)] = {
      val t = rnd.nextInt(12) match { case 0 => "3"; case 1 => "B"; case 2 => "20"; case 3 => "02"; case k => ((k % 3) + '0').toChar.toString }
      Seq("269" -> t) ++ (if (rnd.nextInt(10) == 0) Nil else Seq("270" -> priceText)) ++
        (if (rnd.nextBoolean()) Seq("271" -> (1 + rnd.nextInt(900)).toString) else Nil) ++
        (if (rnd.nextInt(4) == 0) Seq("290" -> "1") else Nil)
    }
    def message(syms: Seq[String], seq: Int): String = {
      val used = syms.filter(_.nonEmpty)
      val base = if (used.nonEmpty && rnd.nextInt(3) != 0) pick(used) else pick(Seq("ZZ", "MSFT", "AB"))
      val sym = rnd.nextInt(8) match {
        case 0 if base.length > 1 => base.dropRight(1)               // a prefix
        case 1 => base + pick(Seq("X", "Q", "9"))                      // longer (9 characters for an 8-character one)
        case 2 => base.toLowerCase
        case _ => base
      }
      val entries = Seq.fill(rnd.nextInt(6))(entry)
      val hdr = Seq("35" -> "W", "49" -> "EXCH", "56" -> "TFISH1", "34" -> seq.toString, "52" -> "20261129-10:00:00.000")
      val symFirst = rnd.nextInt(8) != 0
      var body = hdr ++ (if (symFirst) Seq("55" -> sym) else Nil) ++ Seq("268" -> entries.length.toString) ++ entries.flatten ++
        (if (symFirst) Nil else Seq("55" -> sym))
      var csDelta = 0
      rnd.nextInt(16) match {
        case 0 => csDelta = 1 + rnd.nextInt(255)                                        // bad CheckSum
        case 1 => body = body :+ ("55" -> sym)                                          // two symbols
        case 2 => body = body.map { case ("268", n) => "268" -> (n.toInt + 1).toString; case f => f }   // NoMDEntries wrong
        case 3 => body = ("35" -> "0") +: body.tail                                     // not a W
        case _ =>
      }
      Fix.message(body, checksumDelta = csDelta)
    }
  }

  test("the book follows the committed 35=W of the slots' symbols through corrupt, future and overlapping segments") {
    val seed = TfSim.seed(71)
    compiled.doSim("book", seed) { dut =>
      SimTimeout(4000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val h = new OffloadRxHarness(dut, rnd)
      val bp = new BookPort(h)
      val gen = new Gen(rnd)
      val model = new BookModel(Slots)
      // the risk gate's market reference: taken at random (its own Random: the stimulus is the seed's as before),
      // each slot's last one kept
      val refOut = dut.book.refOut
      val lastRef = Array.fill(Slots)(Option.empty[BigInt])
      var refs, refsChecked = 0L
      val refRnd = new Random(seed + 1)
      h.rxCd.onSamplings {
        if (refOut.valid.toBoolean && refOut.ready.toBoolean) { lastRef(refOut.payload.slot.toInt) = Some(refOut.payload.price.toBigInt); refs += 1 }
        refOut.ready #= refRnd.nextInt(3) != 0
      }
      // the messages of the connection in progress and where each ends in its stream
      var msgs = IndexedSeq[String]()
      var ends = IndexedSeq[Int]()
      var applied = 0
      var inorder = 0L      // bytes of the connection's stream the model has seen in order
      h.model.onInorder = (_, bytes) => inorder += bytes.length
      def catchUp(): Unit = while (applied < msgs.length && ends(applied) <= inorder) { model.apply(msgs(applied)); applied += 1 }
      var checks, reads, kept, updatesSeen = 0L
      def check(where: String): Unit = {
        h.drain()
        catchUp()
        for (k <- 0 until Slots) {
          val (u, px) = bp.read(k, model.decimals)
          val want = (model.updates(k), model.px(k).toSeq)
          assert((u, px) == want, s"seed $seed $where slot $k (${model.syms(k)}): hardware ($u, $px), model $want")
          reads += 1; kept += px.count(_.isDefined); updatesSeen += u
        }
        h.rxCd.waitSampling(200)   // (the feed: 4 slots of at most 10 cycles each, taken one cycle in three at random)
        for (k <- 0 until Slots) model.px(k)(2) match {
          case Some(p) if !p.neg =>
            assert(lastRef(k) == Some(p.mag), s"seed $seed $where slot $k (${model.syms(k)}): market reference ${lastRef(k)}, model's last trade ${p.mag}")
            refsChecked += 1
          case _ =>
        }
        checks += 1
      }
      val pool = Seq("MSFT", "AAPL", "ABCDEFGH", "X", "ibm", "BRK.B", "ES-Z6", "AB")
      var syms = Seq("MSFT", "ABCDEFGH", "", "X")
      var decimals = 2
      var corrupt, future, overlap, reconfigs = 0
      for (conn <- 0 until 12) {
        if (conn > 0 && rnd.nextInt(3) == 0) {
          syms = Seq.fill(Slots)(if (rnd.nextInt(6) == 0) "" else gen.pick(pool))
          if (rnd.nextBoolean()) decimals = rnd.nextInt(9)
          reconfigs += 1
        }
        bp.setSymbols(syms)
        h.configure(decimals = decimals)
        model.configure(syms, decimals)
        val start = rnd.nextLong() & 0xFFFFFFFFL
        h.loadSeq(start)
        check(s"connection $conn configured")
        msgs = IndexedSeq.fill(20 + rnd.nextInt(60))(gen.message(syms, 1 + rnd.nextInt(9999)))
        ends = msgs.scanLeft(0)(_ + _.length).tail
        applied = 0; inorder = 0
        val b = msgs.flatMap(Fix.bytes).toIndexedSeq
        val sent = h.sendStream(start, b, ends.init, oneIn = 10) { (i, z) =>
          if (rnd.nextInt(6) == 0 || z == b.length) check(s"connection $conn segment $i")
        }
        corrupt += sent.corruptIds.length; future += sent.future; overlap += sent.overlap
        assert(applied == msgs.length, s"seed $seed: the model applied $applied of ${msgs.length} messages")
      }
      println(s"[book-offload-rx] seed $seed: $checks checks, $reads slot reads, $kept prices kept, $updatesSeen updates " +
        s"counted; $corrupt corrupt copies, $future segments from the future, $overlap overlapping retransmissions, $reconfigs reconfigurations; " +
        s"$refs market references sent, $refsChecked checked")
      assert(checks > 30 && kept > 100 && corrupt > 10 && future > 5 && overlap > 3 && reconfigs > 1 && refsChecked > 50)
    }
  }
}
