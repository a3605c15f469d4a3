// ShareWireTests
