package triggerfish.exchange;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Replays a {@link PricePath}: for each step it waits delay_ms, then on the exchange's engine thread
 *   1. withdraws its previous quotes in the symbol,
 *   2. if the step has a trade, makes the market trade qty at price: it rests a contra order at the price and
 *      sends an immediate-or-cancel order against it (any client order at a better price trades first, as on a
 *      real market; the leftover contra is withdrawn),
 *   3. quotes the step's bid and ask (quote size), which also fills any client order they cross.
 * Subscribers then see one 35=W per trade print with the new quotes, or one 35=W if there was no trade.
 * Its orders belong to the internal participant "MM" and are visible to every session's orders.
 * With step sync, each step ends with a TestRequest to every subscriber, and the next step's delay starts when
 * all have answered (Exchange.syncSubscribers): the path then goes no faster than its slowest subscriber reads.
 */
final class MarketMaker implements Runnable {
    static final String OWNER = "MM";

    private final Exchange exchange;
    private final PricePath path;
    private final long defaultQuoteSize;
    private final boolean loop, waitForSubscriber, stepSync;
    static final long SYNC_TIMEOUT_MS = 60_000;
    private final Consumer<String> events;
    private final Map<String, List<Order>> quotes = new HashMap<>();
    private volatile boolean running = true;
    private Thread thread;

    MarketMaker(Exchange exchange, PricePath path, long quoteSize, boolean loop, boolean waitForSubscriber,
                boolean stepSync, Consumer<String> events) {
        this.stepSync = stepSync;
        this.exchange = exchange;
        this.path = path;
        this.defaultQuoteSize = quoteSize;
        this.loop = loop;
        this.waitForSubscriber = waitForSubscriber;
        this.events = events;
    }

    void start() {
        thread = new Thread(this, "market-maker");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() {
        running = false;
        if (thread != null) thread.interrupt();
    }

    @Override public void run() {
        try {
            if (waitForSubscriber) {
                events.accept("PATH waiting for a market-data subscriber");
                exchange.firstSubscriber().get();
            }
            int pass = 0;
            do {
                pass++;
                for (PricePath.Step step : path.steps()) {
                    if (!running) return;
                    if (step.delayMs() > 0) Thread.sleep(step.delayMs());
                    exchange.submit(() -> apply(step)).get();
                    if (stepSync) sync("STEP-" + pass + "-" + step.line());
                }
                events.accept("PATH DONE pass " + pass + " (" + path.steps().size() + " steps)");
            } while (loop && running && !path.steps().isEmpty());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            events.accept("PATH ERROR " + e.getCause());
        }
    }

    private void sync(String reqId) throws InterruptedException, ExecutionException {
        CompletableFuture<CompletableFuture<Void>> answers = new CompletableFuture<>();
        exchange.submit(() -> answers.complete(exchange.syncSubscribers(reqId))).get();
        try {
            answers.get().get(SYNC_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            events.accept("PATH sync " + reqId + ": no Heartbeat from every subscriber in " + SYNC_TIMEOUT_MS + " ms; going on");
        }
    }

    /** One step; runs on the engine thread. */
    void apply(PricePath.Step s) {
        events.accept("PATH line " + s.line() + ": " + s.symbol() + " bid " + Order.px(s.bid()) + " ask " + Order.px(s.ask())
                + (s.hasTrade() ? " trade " + s.tradeQty() + " @ " + Order.px(s.tradePx()) : ""));
        List<Order> mine = quotes.computeIfAbsent(s.symbol(), k -> new ArrayList<>());
        for (Order o : mine) exchange.cancelInternal(o);
        mine.clear();
        if (s.hasTrade()) {
            char aggressor = aggressorSide(s);
            char contraSide = aggressor == Order.BUY ? Order.SELL : Order.BUY;
            Order contra = exchange.submitInternal(OWNER, s.symbol(), contraSide, s.tradePx(), s.tradeQty(), Order.DAY);
            exchange.submitInternal(OWNER, s.symbol(), aggressor, s.tradePx(), s.tradeQty(), Order.IOC);
            exchange.cancelInternal(contra);
        }
        long size = s.quoteSize() > 0 ? s.quoteSize() : defaultQuoteSize;
        if (s.bid() != null) quote(mine, s.symbol(), Order.BUY, s.bid(), size);
        if (s.ask() != null) quote(mine, s.symbol(), Order.SELL, s.ask(), size);
    }

    private void quote(List<Order> mine, String symbol, char side, BigDecimal px, long size) {
        Order o = exchange.submitInternal(OWNER, symbol, side, px, size, Order.DAY);
        if (o.isOpen()) mine.add(o);
    }

    /** An uptick (trade at or above the mid, or above the last trade) is a buyer lifting; otherwise a seller hits. */
    private char aggressorSide(PricePath.Step s) {
        if (s.bid() != null && s.ask() != null) {
            BigDecimal twice = s.tradePx().add(s.tradePx());
            return twice.compareTo(s.bid().add(s.ask())) >= 0 ? Order.BUY : Order.SELL;
        }
        Exchange.Trade last = exchange.lastTrade(s.symbol());
        return last == null || s.tradePx().compareTo(last.price()) >= 0 ? Order.BUY : Order.SELL;
    }
}
