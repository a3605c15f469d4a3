// ShareTLSTests
