import Foundation
import Testing
import VitalCore

@testable import LayeredProtocol

@Suite("Codes")
struct CodesTests {
    @Test("every devicemodel has the spec's raw value and name")
    func deviceModels() {
        let expected: [(Int, String)] = [
            (100, "BP5"), (101, "BP3L"), (102, "BPTRACK"), (103, "BP7S"), (104, "BP7"), (200, "AM3S"), (201, "AM4"),
            (300, "PO3"), (400, "BG5"), (402, "BG1"), (500, "HS4"), (501, "HS4S"), (502, "HS2"), (600, "THV3"),
            // VitalBridge's extension: the smartbands
            (700, "FitPro9614N"), (701, "FitPulse9615N"), (702, "SmarteeTraining9616N"),
            // and its generic SIG devices
            (900, "BPS"), (901, "GLS"), (902, "WSS"), (903, "HTS"), (904, "PLXS"), (905, "HRS"),
        ]
        #expect(DeviceModel.allCases.map { ($0.rawValue, $0.name) }.elementsEqual(expected) { $0 == $1 })
        #expect(DeviceModel(rawValue: 401) == nil)
        #expect(DeviceModel(rawValue: 105) == nil)
    }

    @Test("every cmd, addtype, codetype, sex, swim and popflag has the spec's raw value")
    func smallCodes() {
        #expect(LayeredAction.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6])
        #expect(LayeredAction(rawValue: 7) == nil)
        #expect(AddType.scan.rawValue == 0 && AddType.qrCode.rawValue == 1)
        #expect(CodeType.qrCode.rawValue == 0 && CodeType.other.rawValue == 1)
        #expect(UserSex.female.rawValue == 0 && UserSex.male.rawValue == 1)
        #expect(SwimSwitch.off.rawValue == 0 && SwimSwitch.on.rawValue == 1)
        #expect(PopFlag.noPrompt.rawValue == 0 && PopFlag.prompt.rawValue == 1)
        #expect(layeredProtocolVersion == 100)
    }

    @Test("units are 0 to 10 with Kilometre = 10")
    func units() {
        let expected: [VitalUnit] = [
            .mmolPerLiter, .mgPerDeciliter, .mmHg, .kPa, .kilogram, .pound, .stone, .celsius, .fahrenheit, .mile,
            .kilometre,
        ]
        #expect(VitalUnit.allCases == expected)
        #expect(expected.map(\.rawValue) == Array(0...10))
        #expect(VitalUnit.kilometre.rawValue == 10)
        #expect(VitalUnit(rawValue: 11) == nil)
    }

    @Test("the result keys are the spec's")
    func resultKeys() {
        let keys: [ResultKey] = [
            .systolic, .diastolic, .arrhythmia, .measuredAt, .bloodGlucose, .weight, .oxygenSaturation,
            .perfusionIndex, .heartRate, .temperature,
        ]
        #expect(
            keys.map(\.rawValue) == [
                "systolic", "diastolic", "arrhythmia", "measured_at", "blood_glucose", "weight", "oxygen_saturation",
                "perfusion_index", "heart_rate", "temperature",
            ])
        let activity: [ResultKey] = [
            .time, .activeData, .sleepData, .swimData, .steps, .calories, .sleepTime, .sleepEfficiency, .swimTime,
            .measureResult, .syncResult,
        ]
        #expect(
            activity.map(\.rawValue) == [
                "time", "activedata", "sleepdata", "swimdata", "steps", "calories", "sleeptime", "sleepefficiency",
                "swimtime", "measureresult", "syncresult",
            ])
    }

    @Test(
        "each model has its category and default unit",
        arguments: [
            (DeviceModel.bp5, VitalCategory.bloodPressure, VitalUnit?.some(.mmHg)),
            (.bp3l, .bloodPressure, .mmHg), (.bpTrack, .bloodPressure, .mmHg), (.bp7s, .bloodPressure, .mmHg),
            (.bp7, .bloodPressure, .mmHg), (.am3s, .activity, .kilometre), (.am4, .activity, .kilometre),
            (.po3, .oximeter, nil), (.bg5, .bloodGlucose, .mgPerDeciliter), (.bg1, .bloodGlucose, .mgPerDeciliter),
            (.hs4, .weight, .kilogram), (.hs4s, .weight, .kilogram), (.hs2, .weight, .kilogram),
            (.thv3, .thermometer, .celsius),
        ])
    func categories(model: DeviceModel, category: VitalCategory, unit: VitalUnit?) {
        #expect(model.category == category)
        #expect(model.category.defaultUnit == unit)
    }

    @Test("units belong to their categories")
    func unitCategories() {
        #expect(VitalCategory.bloodPressure.units == [.mmHg, .kPa])
        #expect(VitalCategory.bloodGlucose.units == [.mmolPerLiter, .mgPerDeciliter])
        #expect(VitalCategory.weight.units == [.kilogram, .pound, .stone])
        #expect(VitalCategory.thermometer.units == [.celsius, .fahrenheit])
        #expect(VitalCategory.activity.units == [.mile, .kilometre])
        #expect(VitalCategory.oximeter.units.isEmpty)
    }

    /// The "Support Device" list of each section of the spec, copied as the spec writes it.
    static let supportLists: [(LayeredAction, String)] = [
        (.measure, "BP3L  BP5  BP7  PO3  BG5  BG1  HS4  HS4S  HS2  THV3"),
        (.add, "BP3L  BP5  BPTRACK  BP7S  BP7  AM3S  AM4  PO3  BG5  HS4  HS4S  HS2  THV3"),
        (.sync, "BP5  BPTRACK  BP7S  BP7  AM3S  AM4  PO3  BG5  HS4  HS4S  HS2  THV3"),
        (.addMeasure, "BP3L  BP5  BP7  PO3  BG5  HS4  HS4S  HS2  THV3"),
        (.addSync, "BP5  BPTRACK  BP7S  BP7  AM3S  AM4  PO3  BG5  HS4  HS4S  HS2  THV3"),
        (.addSyncMeasure, "BP5  BP7  PO3  BG5  HS4  HS4S  HS2  THV3"),
        (.syncMeasure, "BP5  BP7  PO3  BG5  HS4  HS4S  HS2  THV3"),
    ]

    @Test("the capability matrix is the spec's Support Device lists", arguments: supportLists)
    func capabilities(action: LayeredAction, list: String) {
        let listed = Set(list.split(separator: " ").map { DeviceModel(modelString: $0)! })
        // the smartbands and the generic SIG devices are VitalBridge's extensions, not in the spec's lists
        for model in DeviceModel.allCases where !model.isSmartband && !model.isStandardProfile {
            #expect(model.supports(action) == listed.contains(model), "\(model) cmd \(action.rawValue)")
        }
    }

    @Test("the generic SIG devices: 900–904 run every cmd in their category, 905 adds and measures")
    func standardDevices() {
        let models: [(DeviceModel, VitalCategory)] = [
            (.bloodPressureMonitor, .bloodPressure), (.glucoseMeter, .bloodGlucose), (.weightScale, .weight),
            (.healthThermometer, .thermometer), (.pulseOximeter, .oximeter),
        ]
        for (model, category) in models {
            #expect(model.isStandardProfile && model.category == category)
            #expect(LayeredAction.allCases.allSatisfy(model.supports), "\(model)")
        }
        #expect(LayeredAction.allCases.filter(DeviceModel.heartRateSensor.supports) == [.measure, .add, .addMeasure])
        #expect(DeviceModel.allCases.filter(\.isStandardProfile).map(\.rawValue) == Array(900...905))
    }

    @Test("BG1 only measures")
    func bg1() {
        #expect(LayeredAction.allCases.filter { DeviceModel.bg1.supports($0) } == [.measure])
    }

    @Test("model strings include KN550BT and FDIR-V3, in any case")
    func modelStrings() {
        #expect(DeviceModel(modelString: "KN550BT") == .bpTrack)
        #expect(DeviceModel(modelString: "FDIR-V3") == .thv3)
        #expect(DeviceModel(modelString: "fdir-v3") == .thv3)
        #expect(DeviceModel(modelString: "bp5") == .bp5)
        #expect(DeviceModel(modelString: "BPTRACK") == .bpTrack)
        #expect(DeviceModel(modelString: "BP6") == nil)
        #expect(DeviceModel.bg1.qrModelString == nil)
        for model in DeviceModel.allCases where model != .bg1 {
            #expect(DeviceModel(modelString: model.qrModelString!) == model)
        }
    }

    @Test("actions have the stages the spec names")
    func stages() {
        #expect(
            LayeredAction.allCases.map(\.stages) == [
                [.measure], [.add], [.sync], [.add, .measure], [.add, .sync], [.add, .sync, .measure],
                [.sync, .measure],
            ])
        #expect(LayeredAction.allCases.filter(\.hasCombinedResult) == [.addSyncMeasure, .syncMeasure])
    }
}

@Suite("Reasons")
struct ReasonDocumentationTests {
    /// Every named reason declared on `LayeredReason`.
    static let declared: [LayeredReason] = [
        .cancel, .unsupportedAction, .unsupportedTransport, .missingParameter, .invalidParameter, .repeatedParameter,
        .reservedParameter,
        .parameterNotApplicable, .unsupportedVersion, .unitMismatch, .malformedURL, .requestTooLong, .notLayeredURL,
        .qrModelMismatch, .qrInvalidMAC, .deviceNotFound, .deviceBusy, .urlBudget, .callbackNotAllowed, .unknownCaller,
        .dynamicCallbackNotAllowed, .deviceModelMismatch, .store, .internal, .deviceConnectionFailed,
        .deviceDisconnected, .deviceProtocolViolation, .deviceAuthenticationFailed, .deviceUnsupported,
        .deviceStoreFailed, .deviceTimeout, .deviceFailed, .storeBusy, .noPrompt, .severalDevicesCode,
    ]

    @Test("every declared reason appears in the URL scheme article", arguments: declared)
    func documented(reason: LayeredReason) throws {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "Sources/LayeredProtocol/LayeredProtocol.docc/URLScheme.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        #expect(text.contains("`\(reason.rawValue)"), "\(reason) is not in URLScheme.md")
    }
}
