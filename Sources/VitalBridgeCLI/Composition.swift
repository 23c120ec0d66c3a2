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

/// A progress bar on stderr: `sync [##########          ] 50% (512/1024)`.
func drawProgress(_ progress: SyncProgress) {
    let width = 30
    let filled = Int(progress.fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
    let total = progress.expected.map { "/\($0)" } ?? ""
    let percent = progress.expected == nil ? "" : " \(Int(progress.fraction * 100))%"
    let line = "\rsync [\(bar)]\(percent) (\(progress.stored)\(total))"
    FileHandle.standardError.write(Data(line.utf8))
    if let expected = progress.expected, progress.stored >= expected {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
