/// The phone's client (Sources/Phone) names `WireJSON` through this module; this goes once it
/// imports WireJSON itself, as every other part does.
@_exported import WireJSON
