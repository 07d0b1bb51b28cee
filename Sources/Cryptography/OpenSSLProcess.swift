internal import COpenSSL

/// How OpenSSL lives in this process.
public enum OpenSSLProcess {
    /// Initialises OpenSSL without its exit-time cleanup. Call it first in `main`, before anything uses OpenSSL
    /// (libpq does too).
    ///
    /// By default OpenSSL frees its global state in an `atexit` handler, so a thread still inside OpenSSL while the
    /// process exits reads freed memory, and a clean stop ends in SIGSEGV instead of its exit status. Herald closes
    /// its own sessions and connections before it exits; this covers what it cannot join, and the operating system
    /// reclaims the memory anyway. Only the first initialisation in a process decides, hence "first in `main`".
    /// - Throws: ``OpenSSLError`` when OpenSSL cannot initialise.
    public static func initializeWithoutExitCleanup() throws(OpenSSLError) {
        guard OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1 else {
            throw OpenSSLError(function: "OPENSSL_init_crypto")
        }
    }
}
