// ShareKitTests
