import WireBytes

/// The transport's names for the header types, which live below it (the provider API's rules read them too).
public typealias H2HeaderList = HeaderFields
public typealias H2Header = HeaderField
