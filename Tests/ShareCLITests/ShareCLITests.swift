// ShareCLITests
