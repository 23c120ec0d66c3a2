import ArgumentParser
import Foundation
import VitalHome

/// `vitalbridge install-handler`: makes this binary the desktop's handler of the hub's URL schemes.
struct InstallHandlerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-handler",
        abstract: "Make VitalBridge the desktop's handler of ihealth-layer://, vitalbridge:// and svs-…:// URLs.",
        discussion: """
            Writes $XDG_DATA_HOME/applications/vitalbridge.desktop (~/.local/share/applications without \
            XDG_DATA_HOME), which runs this binary as 'open --deliver %u' (with --home when given), checks it with \
            desktop-file-validate (Debian: desktop-file-utils) and makes it the default handler of each scheme with \
            'xdg-mime default'. The handlers it replaces are kept in the file, and uninstall-handler puts them back. \
            It creates the home if it does not exist. Running it again replaces the file.

            xdg-open without a desktop environment splits the command at spaces and ignores quotes: a binary or \
            home whose path needs quoting gets a warning.

            Examples:
              vitalbridge install-handler
              vitalbridge install-handler --home ~/vitalbridge-home
            """)

    @Option(
        help: ArgumentHelp("The home the handler uses (default: the usual home of each request).", valueName: "dir"))
    var home: String?

    func run() throws {
        do {
            let installed = try DesktopHandler.current.installThisBinary(home: home)
            print("installed \(installed.path) for \(DesktopHandler.schemes.joined(separator: ", "))")
            if installed.needsQuoting {
                printError(
                    "warning: a path of the command needs quoting, which xdg-open without a desktop environment "
                        + "ignores; install VitalBridge and its home at paths without spaces or shell characters to use it there"
                )
            }
        } catch {
            throw CommandError("cannot install the handler: \(error)")
        }
    }
}

/// `vitalbridge uninstall-handler`: undoes `install-handler`.
struct UninstallHandlerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall-handler",
        abstract: "Undo install-handler: put back the schemes' previous handlers and remove vitalbridge.desktop.",
        discussion: """
            A scheme whose default handler is no longer VitalBridge's (the user chose another since) is left as it \
            is. Without an installed handler it says so and exits 0.

            Example:
              vitalbridge uninstall-handler
            """)

    func run() throws {
        do {
            let handler = DesktopHandler.current
            if try handler.uninstall() {
                print("removed \(handler.desktopPath) and its scheme defaults")
            } else {
                print("no VitalBridge handler is installed in \(handler.applications)")
            }
        } catch {
            throw CommandError("cannot uninstall the handler: \(error)")
        }
    }
}
