package triggerfish.exchange;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static triggerfish.exchange.TestSupport.entries;
import static triggerfish.exchange.TestSupport.get;
import static triggerfish.exchange.TestSupport.next;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;
import quickfix.Message;

/** The burst command (Burst): its parsing, the /proc/net/tcp reading, and bursts to a real FIX client. */
public class BurstTest {
    @Test public void parsesDefaultsAndOptions() {
        Burst.Spec s = Burst.parse("burst 10 segment");
        assertEquals(10, s.n);
        assertEquals(Burst.Shape.SEGMENT, s.shape);
        assertEquals("MSFT", s.symbol);
        assertEquals(List.of(5), s.testreq);           // the middle message by default
        assertEquals(0, s.inflight);
        assertEquals(new BigDecimal("99.99"), s.tradePx(1));
        assertEquals(new BigDecimal("100.01"), s.tradePx(2));
        s = Burst.parse("burst 100 coalesced symbol=AAPL bid=1 ask=2 cross=3:100.15,7:99.85 testreq=1,99 inflight=4096 liquidity=0");
        assertEquals(Burst.Shape.COALESCED, s.shape);
        assertEquals("AAPL", s.symbol);
        assertEquals(new BigDecimal("100.15"), s.tradePx(3));
        assertEquals(new BigDecimal("99.85"), s.tradePx(7));
        assertEquals(new BigDecimal("99.99"), s.tradePx(5));
        assertEquals(List.of(1, 99), s.testreq);
        assertEquals(4096, s.inflight);
        assertEquals(0, s.liquidity);
    }

    @Test public void refusesBadCommands() {
        for (String bad : new String[] {"burst", "burst 10", "burst 0 segment", "burst 10 packed", "burst 10 segment cross=11:1",
                "burst 10 segment cross=3", "burst 10 segment testreq=0", "burst 10 segment nope=1", "burst 10 segment x",
                "bust 10 segment", "burst 10 segment depth=0", "burst 10 segment depth=201"}) {
            try {
                Burst.parse(bad);
                fail("accepted: " + bad);
            } catch (IllegalArgumentException e) {
                // NumberFormatException is one too
            }
        }
    }

    /** depth=D: D bid and D offer levels a cent apart from the best, positions 1..D, then the trade; 20 levels make a
     *  message longer than the SoC firmware's 1,024-byte receive buffer that still fits one TCP segment
     *  (sim/tests/test_long_md.py). */
    @Test public void depthGivesLevelsACentApart() {
        assertEquals(1, Burst.parse("burst 1 segment").depth);
        assertEquals(25, Burst.parse("burst 1 segment depth=25").depth);
        Message w = Burst.snapshot("md", "MSFT", new BigDecimal("99.95"), new BigDecimal("100.05"), new BigDecimal("100.01"), 3);
        assertEquals(List.of("0 99.95 100 1", "0 99.94 100 2", "0 99.93 100 3", "1 100.05 100 1", "1 100.06 100 2",
                "1 100.07 100 3", "2 100.01 100"), entries(w));
        w = Burst.snapshot("md", "MSFT", new BigDecimal("99.95"), new BigDecimal("100.05"), new BigDecimal("100.01"), 1);
        assertEquals(List.of("0 99.95 100 1", "1 100.05 100 1", "2 100.01 100"), entries(w));
        int len = Burst.snapshot("md", "MSFT", new BigDecimal("99.95"), new BigDecimal("100.05"), new BigDecimal("100.01"), 20)
                .toString().length();
        assertTrue("20 levels: " + len + " bytes", len > 1100 && len < 1400);
    }

    @Test public void readsTheSocketsQueueFromProcNetTcp() {
        List<String> lines = List.of(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   0: 0100007F:2694 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1",
                "   1: 01004D0A:2694 02004D0A:C350 01 000005B4:00000000 01:00000014 00000000     0        0 2 1",
                "   2: 01004D0A:2694 02004D0A:C351 01 00000010:00000000 01:00000014 00000000     0        0 3 1");
        assertEquals(0x5B4, Burst.txQueueOf(lines, ":2694", ":C350"));   // 9876 -> 50000: 1460 bytes
        assertEquals(16, Burst.txQueueOf(lines, ":2694", ":C351"));
        assertEquals(-1, Burst.txQueueOf(lines, ":2694", ":C352"));
        assertEquals(-1, Burst.txQueueOf(lines, ":2694", ":0000"));      // the listening socket is not ESTABLISHED
    }

    private List<Message> burstOf(String shape) throws Exception {
        try (TestSupport.Running ex = new TestSupport.Running("burst-" + shape, null, false, "MSFT")) {
            FixClient c = ex.client("BURSTER");
            c.send(FixClient.marketDataRequest("md", '1', "MSFT"));
            next(c, "W");                                  // the subscription's snapshot (empty book)
            assertTrue(ex.server.exchange().startBurst(Burst.parse("burst 12 " + shape + " cross=4:100.15 testreq=6")));
            Message rested = next(c, "W");                 // the market maker's liquidity at 99.95 / 100.05
            assertEquals(List.of("0 99.95 1000000 1", "1 100.05 1000000 1"), entries(rested));
            List<Message> out = new ArrayList<>();
            for (int i = 0; i < 12; i++) out.add(next(c, "W"));
            long deadline = System.currentTimeMillis() + TestSupport.TIMEOUT_MS;
            while (System.currentTimeMillis() < deadline
                    && !(has(ex.events, "BURST ACKED n=12") && has(ex.events, "BURST HEARTBEAT id=BURST-TR-6"))) Thread.sleep(20);
            assertTrue(String.join("\n", ex.events), has(ex.events, "BURST START n=12 shape=" + shape));
            assertTrue(String.join("\n", ex.events), has(ex.events, "BURST CROSS index=4 seq="));
            assertTrue(String.join("\n", ex.events), has(ex.events, "BURST TESTREQ id=BURST-TR-6 after=6"));
            assertTrue(String.join("\n", ex.events), has(ex.events, "BURST SENT n=12"));
            assertTrue(String.join("\n", ex.events), has(ex.events, "BURST HEARTBEAT id=BURST-TR-6 delay_ms="));
            assertTrue(String.join("\n", ex.events), has(ex.events, "BURST ACKED n=12"));
            assertEquals("BURST-TR-6", get(next(c, "1"), 112));
            return out;
        }
    }

    private static boolean has(List<String> events, String prefix) {
        synchronized (events) {
            return events.stream().anyMatch(e -> e.startsWith(prefix));
        }
    }

    private void checkBurst(List<Message> ws) throws Exception {
        int first = ws.get(0).getHeader().getInt(34);
        for (int i = 0; i < ws.size(); i++) {
            Message w = ws.get(i);
            assertEquals("md", get(w, 262));
            String trade = i + 1 == 4 ? "100.15" : (i + 1) % 2 == 1 ? "99.99" : "100.01";
            assertEquals(List.of("0 99.95 100 1", "1 100.05 100 1", "2 " + trade + " 100"), entries(w));
            // consecutive numbers, except the TestRequest's after message 6
            assertEquals(first + i + (i >= 6 ? 1 : 0), w.getHeader().getInt(34));
        }
    }

    @Test public void coalescedBurstReachesTheSubscriber() throws Exception {
        checkBurst(burstOf("coalesced"));
    }

    @Test public void segmentBurstReachesTheSubscriber() throws Exception {
        checkBurst(burstOf("segment"));
    }
}
