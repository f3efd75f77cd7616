package triggerfish.exchange;

import java.math.BigDecimal;
import java.math.RoundingMode;
import quickfix.SessionID;

/** One order, from a FIX session or from the built-in market maker (session == null). */
final class Order {
    static final char BUY = '1', SELL = '2';
    static final char MARKET = '1', LIMIT = '2';
    static final char DAY = '0', GTC = '1', IOC = '3';
    // OrdStatus (39) values used here
    static final char NEW = '0', PARTIAL = '1', FILLED = '2', CANCELED = '4', REJECTED = '8';

    final long seq;           // arrival order (time priority)
    final String orderId;     // 37
    final SessionID session;  // null: internal (market maker)
    final String owner;       // TargetCompID of the session, or "MM"
    final String account;     // 1, may be null
    final String symbol;
    final char side, ordType, tif;
    final BigDecimal price;   // null for market orders
    final long qty;
    String clOrdId;           // 11: the latest one (a cancel replaces it)
    long cumQty;
    BigDecimal notional = BigDecimal.ZERO;
    char status = NEW;

    Order(long seq, SessionID session, String owner, String account, String clOrdId, String symbol,
          char side, char ordType, char tif, BigDecimal price, long qty) {
        this.seq = seq;
        this.orderId = "O" + seq;
        this.session = session;
        this.owner = owner;
        this.account = account;
        this.clOrdId = clOrdId;
        this.symbol = symbol;
        this.side = side;
        this.ordType = ordType;
        this.tif = tif;
        this.price = price;
        this.qty = qty;
    }

    boolean isOpen() { return status == NEW || status == PARTIAL; }

    long leaves() { return isOpen() ? qty - cumQty : 0; }

    void fill(long q, BigDecimal px) {
        cumQty += q;
        notional = notional.add(px.multiply(BigDecimal.valueOf(q)));
        status = cumQty == qty ? FILLED : PARTIAL;
    }

    BigDecimal avgPx() {
        if (cumQty == 0) return BigDecimal.ZERO;
        return notional.divide(BigDecimal.valueOf(cumQty), 8, RoundingMode.HALF_EVEN).stripTrailingZeros();
    }

    /** True when this order, at its limit, may trade at the given resting price. */
    boolean crosses(BigDecimal restingPx) {
        if (price == null) return true;
        return side == BUY ? price.compareTo(restingPx) >= 0 : price.compareTo(restingPx) <= 0;
    }

    static String sideName(char side) { return side == BUY ? "BUY" : "SELL"; }

    static String px(BigDecimal p) { return p == null ? "MKT" : p.stripTrailingZeros().toPlainString(); }

    @Override public String toString() {
        return owner + "/" + clOrdId + " " + sideName(side) + " " + qty + " " + symbol + " @ " + px(price);
    }
}
