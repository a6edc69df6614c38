// `ContainerLayout` lives in EntitlementDefaults, below this module, so that a tool that only
// reads the shared file (`widget-renderer`) knows the container without linking the daemon's
// library; it stays part of this module's API for the daemon, the ingest client and their callers.
@_exported import struct EntitlementDefaults.ContainerLayout
