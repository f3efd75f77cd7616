// Random FIX market data for the OffloadRx tests: W messages with fields in any order, entries 0..8, prices in
// every format (and broken ones), heartbeats and execution reports, garbage; and the table entries they hit.
package triggerfish.offload

import scala.util.Random
import Fix.SOH

class OffloadRxGen(rnd: Random, var decimals: Int) {
  val symbols = Seq("AAPL", "MSFT", "IBM", "GOOGL", "BRK.B", "A", "ZZZZZZZZ", "T", "ES-Z5", "X_Y/1", "GE", "VOD.L", "1234")
  val strangers = Seq("AAPLX", "AAP", "aapl", "MSFT ", "TOOLONGSYM", "IB", "ZZZZZZZZZ", "G E")
  val base: Map[String, Long] = symbols.map(s => s -> (1L + rnd.nextInt(2000000))).toMap   // whole units
  def scale: Long = BigInt(10).pow(decimals).toLong
  def basePrice(sym: String): Long = base.getOrElse(sym, 1000L) * scale

  /** A price near `center` (fixed point): exact stops are hit often, and one unit either side. */
  def priceNear(center: Long): Long = {
    val r = rnd.nextInt(10)
    val p = if (r < 2) center else if (r < 3) center + 1 else if (r < 4) center - 1
    else center + ((rnd.nextGaussian() * 0.02 * center).toLong)
    math.max(0L, math.min(p, 99999999999999L))
  }
  /** A FIX rendering of a fixed-point price; sometimes one the offload cannot use. */
  def priceText(v: Long): String = rnd.nextInt(40) match {
    case 0 => Fix.price(v, decimals, decimals + 1)                       // too many decimals
    case 1 => "-" + Fix.price(v, decimals, decimals)
    case 2 => Fix.price(v, decimals, decimals) + "x"
    case 3 => "1.2.3"
    case 4 => "."
    case 5 => "123456789012345"                                           // too many digits
    case _ =>
      val minFrac = { var f = decimals; var x = v; while (f > 0 && x % 10 == 0) { x /= 10; f -= 1 }; f }
      val frac = minFrac + rnd.nextInt(decimals - minFrac + 1)
      val s = Fix.price(v, decimals, frac, leadingZeros = if (rnd.nextInt(8) == 0) 1 + rnd.nextInt(3) else 0,
        trailingDot = frac == 0 && rnd.nextInt(5) == 0)
      if (s.startsWith("0.") && rnd.nextInt(4) == 0) s.drop(1) else s   // ".5"
  }

  def pick[T](xs: Seq[T]): T = xs(rnd.nextInt(xs.length))

  /** One W message (as text) for `sym`, with malformations when `malformed` > 0 (probability weight). */
  def wMessage(sym: String, tradeType: Char = '2'): String = {
    val nEntries = rnd.nextInt(9)
    val center = basePrice(sym)
    val entries = (0 until nEntries).map { _ =>
      val typ = rnd.nextInt(5) match { case 0 | 1 => tradeType.toString; case 2 => "0"; case 3 => "1"; case _ => pick(Seq("2", "0", "J", "22")) }
      val fields = Seq("270" -> priceText(priceNear(center)), "271" -> (1 + rnd.nextInt(5000)).toString) ++
        (if (rnd.nextBoolean()) Seq("290" -> (1 + rnd.nextInt(5)).toString) else Nil) ++
        (if (rnd.nextInt(6) == 0) Seq("58" -> "a=b c") else Nil)
      val inner = rnd.shuffle(if (rnd.nextInt(12) == 0) fields.filterNot(_._1 == "270") else fields)
      ("269" -> typ) +: inner
    }
    val header = rnd.shuffle(Seq("34" -> (1 + rnd.nextInt(100000)).toString, "49" -> "EXCH", "52" -> "20240101-12:00:00.000", "56" -> "TF"))
    val symField = "55" -> sym
    val before = rnd.shuffle(Seq(symField, "262" -> "req1", "268" -> nEntries.toString))
    var body: Seq[(String, String)] =
      if (rnd.nextInt(10) == 0) Seq("35" -> "W") ++ header ++ before.filterNot(_._1 == "55") ++ entries.flatten ++ Seq(symField)
      else Seq("35" -> "W") ++ header ++ before ++ entries.flatten
    var bodyLenDelta = 0; var csDelta = 0
    rnd.nextInt(90) match {   // malformations (one message in 7 or so)
      case 0 => csDelta = 1 + rnd.nextInt(255)
      case 1 => bodyLenDelta = pick(Seq(-3, -1, 1, 2, 7))
      case 2 => body = body.filterNot(_._1 == "268")
      case 3 => body = body.map { case ("268", v) => "268" -> (v.toInt + 1).toString; case x => x }
      case 4 => body = body :+ symField
      case 5 => body = body.patch(1 + rnd.nextInt(body.length - 1), Seq("270" -> "1"), 0)   // orphan or second 270
      case 6 => body = body.patch(1 + rnd.nextInt(body.length - 1), Seq("58" -> ""), 0)     // empty value
      case 7 => body = body.patch(1 + rnd.nextInt(body.length - 1), Seq("0123" -> "x"), 0)  // leading zero in a tag
      case 8 => body = body.patch(1 + rnd.nextInt(body.length - 1), Seq("5x5" -> "AAPL"), 0)
      case 9 => body = rnd.shuffle(body)                                                     // 35 not first, group scrambled
      case 10 => body = body.patch(1 + rnd.nextInt(body.length - 1), Seq("10" -> "000"), 0)
      case 11 => body = body.map { case ("268", _) => "268" -> "0x"; case x => x }
      case _ =>
    }
    Fix.message(body, bodyLenDelta, csDelta)
  }
  def heartbeat(): String = Fix.message(Seq("35" -> "0", "34" -> "7", "49" -> "EXCH", "52" -> "20240101-12:00:00", "56" -> "TF"))
  def execReport(sym: String): String = Fix.message(Seq("35" -> "8", "34" -> "9", "49" -> "EXCH", "56" -> "TF", "55" -> sym,
    "268" -> "1", "269" -> "2", "270" -> priceText(basePrice(sym)), "150" -> "F"))
  def garbage(): String = rnd.nextInt(6) match {
    case 0 => "8=FIX.4.2" + SOH + "9=5" + SOH
    case 1 => SOH.toString + "8=FIX.4.4" + SOH + "9=0" + SOH
    case 2 => "8=FIX.4.4" + SOH + "9=12" + SOH + "35=W" + SOH + "55"
    case _ => new String(Array.fill(1 + rnd.nextInt(30))(pick(Seq('8', '=', SOH, 'F', '1', '0', 'x', '5')).toChar))
  }
  /** The exchange's stream: mostly W messages, some others, some garbage. */
  def streamChunk(tradeType: Char = '2'): String = rnd.nextInt(20) match {
    case 0 => heartbeat()
    case 1 => execReport(pick(symbols))
    case 2 => garbage()
    case 3 => wMessage(pick(strangers), tradeType)
    case _ => wMessage(pick(symbols), tradeType)
  }

  def entry(): ModelEntry = {
    val sym = if (rnd.nextInt(25) == 0) pick(Seq("aapl", "G E")) else pick(symbols)
    val center = basePrice(if (base.contains(sym)) sym else "AAPL")
    val stop = math.max(0L, math.min(center + ((rnd.nextGaussian() * 0.02 * center).toLong), 99999999999999L))
    ModelEntry(sym, stop, sell = rnd.nextBoolean(), oneShot = rnd.nextInt(5) != 0, tmpl = rnd.nextInt(16))
  }
}
