// ShareDiscoveryTests
