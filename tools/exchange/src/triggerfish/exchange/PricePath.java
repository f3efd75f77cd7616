package triggerfish.exchange;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A scripted market, one step a line:
 * <pre>
 *   # comment
 *   &lt;delay_ms&gt; &lt;symbol&gt; &lt;bid|-&gt; &lt;ask|-&gt; [trade &lt;price&gt; &lt;qty&gt;] [size &lt;qty&gt;]
 * </pre>
 * delay_ms is the wait before the step (after the previous one). bid/ask are the market maker's quotes
 * ("-" for none on that side); "trade" makes the market trade qty at price; "size" sets the quote size
 * for this step (default: the --quote-size option).
 */
record PricePath(List<Step> steps) {
    record Step(int line, long delayMs, String symbol, BigDecimal bid, BigDecimal ask,
                BigDecimal tradePx, long tradeQty, long quoteSize) {
        boolean hasTrade() { return tradePx != null; }
    }

    static PricePath load(Path file) throws IOException {
        return parse(Files.readAllLines(file), file.toString());
    }

    static PricePath parse(List<String> lines, String name) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i);
            int hash = text.indexOf('#');
            if (hash >= 0) text = text.substring(0, hash);
            text = text.trim();
            if (text.isEmpty()) continue;
            try {
                steps.add(parseStep(i + 1, text.split("\\s+")));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(name + ":" + (i + 1) + ": " + e.getMessage()
                        + " (expected: <delay_ms> <symbol> <bid|-> <ask|-> [trade <price> <qty>] [size <qty>])", e);
            }
        }
        return new PricePath(List.copyOf(steps));
    }

    private static Step parseStep(int line, String[] t) {
        if (t.length < 4) throw new IllegalArgumentException("too few fields");
        long delay = Long.parseLong(t[0]);
        if (delay < 0) throw new IllegalArgumentException("negative delay");
        String symbol = t[1];
        BigDecimal bid = price(t[2]), ask = price(t[3]);
        if (bid != null && ask != null && bid.compareTo(ask) >= 0)
            throw new IllegalArgumentException("bid " + t[2] + " is not below ask " + t[3]);
        BigDecimal tradePx = null;
        long tradeQty = 0, size = -1;
        for (int i = 4; i < t.length; i += 2) {
            if (i + 1 >= t.length) throw new IllegalArgumentException("'" + t[i] + "' needs a value");
            switch (t[i]) {
                case "trade" -> {
                    tradePx = price(t[i + 1]);
                    if (tradePx == null || i + 2 >= t.length) throw new IllegalArgumentException("trade needs <price> <qty>");
                    tradeQty = qty(t[i + 2]);
                    i++;
                }
                case "size" -> size = qty(t[i + 1]);
                default -> throw new IllegalArgumentException("unknown keyword '" + t[i] + "'");
            }
        }
        return new Step(line, delay, symbol, bid, ask, tradePx, tradeQty, size);
    }

    private static BigDecimal price(String s) {
        if (s.equals("-")) return null;
        BigDecimal p = new BigDecimal(s);
        if (p.signum() <= 0) throw new IllegalArgumentException("price must be positive: " + s);
        return p;
    }

    private static long qty(String s) {
        long q = Long.parseLong(s);
        if (q <= 0) throw new IllegalArgumentException("quantity must be positive: " + s);
        return q;
    }

    Set<String> symbols() {
        Set<String> out = new LinkedHashSet<>();
        for (Step s : steps) out.add(s.symbol());
        return out;
    }
}
