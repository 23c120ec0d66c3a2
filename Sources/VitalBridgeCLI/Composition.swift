import Foundation
import Logging
import VitalDevices
import VitalHome

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine's logger: one line per event on standard error, at `$VITALBRIDGE_LOG_LEVEL` (`trace` … `critical`),
/// else `notice`, which shows why a request failed and nothing of a successful one.
func hubLogger() -> Logger {
    var logger = Logger(label: "vitalbridge") { label in StreamLogHandler.standardError(label: label) }
    logger.logLevel = environment("VITALBRIDGE_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .notice
    return logger
}

/// Draws `progress`'s bar (``SyncProgress/bar``) on stderr.
func drawProgress(_ progress: SyncProgress) {
    FileHandle.standardError.write(Data(progress.bar.utf8))
}
