package quickfix.mina;

import org.apache.mina.core.session.IoSession;
import quickfix.Responder;

/**
 * The MINA session under a QuickFIX/J session's responder, for the exchange's burst command
 * (triggerfish.exchange.Burst): it needs the socket's addresses (to find it in /proc/net/tcp) and its
 * TCP_NODELAY switch. QuickFIX/J keeps IoSessionResponder.getIoSession() package-private, hence this one
 * method in its package (the exchange runs from a plain class path, so the package is not sealed).
 */
public final class TriggerfishIo {
    private TriggerfishIo() {}

    /** The IoSession of a socket session's responder, or null (no responder, or not a MINA one). */
    public static IoSession ioSession(Responder r) {
        return r instanceof IoSessionResponder i ? i.getIoSession() : null;
    }
}
