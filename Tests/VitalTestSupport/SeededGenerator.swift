/// The tests' random values come from the simulator's own deterministic generator (SplitMix64), so a failing
/// property test reproduces from its seed.
@_exported import struct VitalSimulation.SeededGenerator
