package triggerfish.exchange;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.Test;

public class PricePathTest {
    @Test public void parsesStepsCommentsAndOptionalParts() {
        PricePath p = PricePath.parse(List.of(
                "# a comment",
                "",
                "0 MSFT 1169.75 1170.25          # quotes only",
                "250 MSFT 1170.00 1170.50 trade 1170.25 200 size 50",
                "10 AAPL - 190.5 size 7"), "t");
        assertEquals(3, p.steps().size());
        PricePath.Step a = p.steps().get(0), b = p.steps().get(1), c = p.steps().get(2);
        assertEquals(3, a.line());
        assertFalse(a.hasTrade());
        assertEquals(new BigDecimal("1169.75"), a.bid());
        assertEquals(250, b.delayMs());
        assertEquals(new BigDecimal("1170.25"), b.tradePx());
        assertEquals(200, b.tradeQty());
        assertEquals(50, b.quoteSize());
        assertNull(c.bid());
        assertEquals(7, c.quoteSize());
        assertEquals(List.of("MSFT", "AAPL"), List.copyOf(p.symbols()));
    }

    @Test public void badLinesNameTheirLine() {
        for (String bad : new String[] {"0 MSFT 101 100", "0 MSFT 100", "0 MSFT 99 100 trade 99.5",
                "0 MSFT 99 100 swap 1 2", "-5 MSFT 99 100", "0 MSFT 99 100 trade 99.5 0", "0 MSFT abc 100"}) {
            try {
                PricePath.parse(List.of("# header", bad), "f.path");
                fail("accepted: " + bad);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("f.path:2: "));
            }
        }
    }

    @Test public void sampleDemoPathLoads() throws Exception {
        Path demo = TestSupport.settingsFile().resolveSibling("paths/demo.path");
        assertTrue(Files.exists(demo));
        PricePath p = PricePath.load(demo);
        assertTrue(p.steps().size() >= 10);
        assertEquals(List.of("MSFT"), List.copyOf(p.symbols()));
    }
}
