// TypeRegistryTests
