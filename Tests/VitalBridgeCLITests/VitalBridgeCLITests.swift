import Foundation
import Testing
import VitalCore
import VitalTestSupport

/// Runs the `vitalbridge` binary built next to this test bundle.
func vitalbridge(_ arguments: String...) throws -> ProcessOutput {
    try vitalbridge(arguments)
}

/// The `vitalbridge` binary built next to this test bundle.
var vitalbridgePath: URL {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let binary = directory.appendingPathComponent("vitalbridge")
    // swift-testing's runner may start from the .xctest bundle's own folder
    return FileManager.default.isExecutableFile(atPath: binary.path)
        ? binary : directory.deletingLastPathComponent().appendingPathComponent("vitalbridge")
}

/// Runs the `vitalbridge` binary with `arguments`, adding `environment` to this process's environment.
func vitalbridge(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessOutput {
    try runProgram(vitalbridgePath.path, arguments, environment: environment)
}

@Suite("vitalbridge request and callback")
struct VitalBridgeCLITests {
    @Test("request prints the validated fields of a spec example")
    func request() throws {
        let output = try vitalbridge(
            "request", "ihealth-layer://?cmd=0&devicemodel=100&mac=004d3208d2f4&unit=2&ver=100&scheme=myapp")
        #expect(output.status == 0)
        #expect(output.stdout.contains("cmd: 0 (measure)\n"))
        #expect(output.stdout.contains("devicemodel: 100 (BP5, bloodPressure)\n"))
        #expect(output.stdout.contains("mac: 004D3208D2F4\n"))
        #expect(output.stdout.contains("unit: 2 (mmHg)\n"))
        #expect(output.stdout.contains("echo: cmd=0&devicemodel=100&unit=2&ver=100&scheme=myapp\n"))
        #expect(output.stderr.isEmpty)
    }

    @Test("request rejects a bad URL with one line naming the parameter and exit 1")
    func badRequest() throws {
        let output = try vitalbridge(
            "request", "--platform", "android", "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4")
        #expect(output.status == 1)
        #expect(output.stdout.isEmpty)
        #expect(
            output.stderr
                == "invalid request: missingParameter (appid): Android requests need appid; fail callback reason ERROR_MISSING_PARAMETER:appid\n"
        )
    }

    @Test("a usage error exits 2 with the usage")
    func usage() throws {
        let output = try vitalbridge("request", "--platform", "windows", "x://")
        #expect(output.status == 2)
        #expect(output.stderr.contains("platform"))
    }

    @Test("callback decodes a composite status by stage and prints each reading, typed in its unit")
    func callback() throws {
        let measured = #"{"systolic":16.0,"diastolic":10.7,"heart_rate":70,"measured_at":"2017-10-10 10:10:10"}"#
        let stored = #"{"systolic":14.7,"diastolic":9.3,"arrhythmia":1,"measured_at":"2017-10-09 08:00:00"}"#
        let url =
            "myapp://?cmd=6&devicemodel=100&unit=3&requestid=r-7&status=255&mac=004D3208D2F4&result="
            + PercentEncoding.encode(#"{"measureresult":[\#(measured)],"syncresult":[\#(stored)]}"#)
            + "&remaining=3"
        let output = try vitalbridge("callback", url)
        #expect(output.status == 0)
        #expect(
            output.stdout == """
                destination: myapp://
                requestid: r-7
                status: 255 (sync success, measure success)
                mac: 004D3208D2F4
                remaining: 3
                measured: blood pressure 16.0/10.7 kPa, pulse 70/min at 2017-10-10 10:10:10
                stored: blood pressure 14.7/9.3 kPa, irregular heartbeat at 2017-10-09 08:00:00

                """)
        let failed = try vitalbridge(
            "callback", "myapp://?cmd=6&devicemodel=100&status=12799&mac=004D3208D2F4&reason=ERROR-100-4")
        #expect(failed.stdout.contains("status: 12799 (sync fail, measure notPerformed)"))
        #expect(failed.stdout.contains("reason: ERROR-100-4 (BP5 error 4)"))
    }

    @Test(
        "callback shows an activity day whole: an AM's sleep and swimming, a band's sleep phases, heart rate and sports"
    )
    func activityDays() throws {
        let monitor =
            #"[{"time":"2017-01-01","activedata":{"steps":1000,"calories":1000},"sleepdata":{"sleeptime":100,"sleepefficiency":100},"swimdata":{"swimtime":1000,"calories":1000}}]"#
        let am = try vitalbridge(
            "callback",
            "myapp://?cmd=2&devicemodel=201&mac=004D3208D30A&unit=9&status=0&result=" + PercentEncoding.encode(monitor))
        #expect(am.status == 0, "\(am.stderr)")
        #expect(
            am.stdout.hasSuffix(
                "stored: activity 2017-01-01: 1000 steps, 1000 kcal; sleep 100 min (efficiency 100 %); "
                    + "swim 1000 min, 1000 kcal\n"), "\(am.stdout)")
        let day =
            #"[{"time":"2026-11-20","activedata":{"steps":8421,"calories":312,"distance":6.12},"sleepdata":{"sleeptime":412,"sleepefficiency":88,"deep":95,"light":270,"awake":47},"heartratedata":{"min":52,"avg":71,"max":128,"minutes":1380},"sportdata":[{"type":1,"start":"08:10:00","end":"08:45:00","calories":120},{"type":136,"start":"18:00:00","end":"18:45:00","calories":310}]}]"#
        let band = try vitalbridge(
            "callback",
            "myapp://?cmd=2&devicemodel=702&mac=004D3208D312&unit=10&status=0&result=" + PercentEncoding.encode(day))
        #expect(band.status == 0, "\(band.stderr)")
        #expect(
            band.stdout.hasSuffix(
                "stored: activity 2026-11-20: 8421 steps, 312 kcal, 6.12 km; "
                    + "sleep 412 min (efficiency 88 %, deep 95, light 270, awake 47 min); "
                    + "heart rate 52/71/128 /min (min/avg/max) over 1380 min; "
                    + "sports 0x01 08:10:00–08:45:00 120 kcal, 0x88 18:00:00–18:45:00 310 kcal\n"), "\(band.stdout)")
        // a part of the wrong shape is refused, naming it
        let broken = try vitalbridge(
            "callback",
            "myapp://?cmd=2&devicemodel=702&mac=004D3208D312&unit=10&status=0&result="
                + PercentEncoding.encode(day.replacingOccurrences(of: #""avg":71"#, with: #""avg":"high""#)))
        #expect(broken.status == 1 && broken.stdout.isEmpty)
        #expect(broken.stderr.contains("result object 1 has heartratedata.avg that is not a whole number"))
    }

    @Test("callback rejects a URL without status")
    func badCallback() throws {
        let output = try vitalbridge("callback", "myapp://?cmd=0")
        #expect(output.status == 1)
        #expect(output.stderr.hasPrefix("invalid callback: missingParameter (status)"))
    }
}
