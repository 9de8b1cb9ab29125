/// Milliseconds since the UNIX epoch: the unit of every time on APNs' wire (410 `timestamp`) and ours.
public typealias Millis = Int64
