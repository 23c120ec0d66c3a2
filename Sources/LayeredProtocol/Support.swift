import VitalCore

extension DeviceModel {
    /// Whether the model can run `action`, following the "Support Device" list of each section of the spec.
    ///
    /// Those lists are authoritative where the comments of the `cmd` enum disagree: BG1 only measures; BP3L
    /// never syncs; BPTRACK, BP7S and the AM monitors never measure; HS2 measures. The smartbands, VitalBridge's
    /// extension, are added and synced like the AM monitors and never measure; its generic SIG devices 900–904 do
    /// everything (each profile has a way to send a new reading and stored ones); its heart-rate sensor (905) is
    /// added and measures.
    public func supports(_ action: LayeredAction) -> Bool {
        // one "Support Device" list per cmd; a switch over arrays, not a dictionary of sets, so that asking costs
        // no hashing set-up in a process that asks once
        let models: [DeviceModel] =
            switch action {
            case .measure: [.bp3l, .bp5, .bp7, .po3, .bg5, .bg1, .hs4, .hs4s, .hs2, .thv3]
            case .add: [.bp3l, .bp5, .bpTrack, .bp7s, .bp7, .am3s, .am4, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3]
            case .sync: [.bp5, .bpTrack, .bp7s, .bp7, .am3s, .am4, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3]
            case .addMeasure: [.bp3l, .bp5, .bp7, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3]
            case .addSync: [.bp5, .bpTrack, .bp7s, .bp7, .am3s, .am4, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3]
            case .addSyncMeasure: [.bp5, .bp7, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3]
            case .syncMeasure: [.bp5, .bp7, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3]
            }
        if isSmartband { return [.add, .sync, .addSync].contains(action) }
        if self == .heartRateSensor { return [.add, .measure, .addMeasure].contains(action) }
        if isStandardProfile { return true }
        return models.contains(self)
    }
}
